import { outcome } from '../kit/app-process.js';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runDoctorCommand } from '../../src/operator/doctor-command.js';
import { runSecretsCommand } from '../../src/operator/secrets-command.js';
import { runSettingsCommand } from '../../src/operator/settings-command.js';
import { type OperatorCommand, runInProcess } from '../kit/command-in-process.js';
import { bareEnv, npmRun } from '../ops/npm-start.js';

/*
 * Wrong arguments to each operator command, as the operator gives them, with no configuration at all (no
 * variable, no .env where it runs), so a command that let a wrong argument through would fail on the
 * configuration instead (exit 1) and the case with it. Every command answers alike: the first line names what
 * was wrong, the usage that --help prints follows, exit 2. The commands' own functions run in the test's process
 * (test/kit/command-in-process.ts), as main() runs them; the built artifact (`npm run -s settings -- frob` is
 * `node dist/mintlink.mjs settings frob`) is started for what main() itself answers, for the manifest command
 * (its manifest.yml is built into the bundle as text), and for one case of each command through it. Nothing
 * here changes anything: the tests run side by side (the in-process runs take turns).
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const artifact = fileURLToPath(new URL('../../dist/mintlink.mjs', import.meta.url));
const run = promisify(execFile);

const mintlinkProcess = (...args: string[]) =>
  outcome(run(process.execPath, [artifact, ...args], { cwd: tmpdir(), env: bareEnv() }));

const COMMANDS: Record<string, OperatorCommand> = {
  settings: runSettingsCommand,
  secrets: runSecretsCommand,
  doctor: runDoctorCommand,
};

/** `node dist/mintlink.mjs <command> <args>`: the command's function in this process, or the process for manifest. */
const mintlink = (command: string, ...args: string[]) => {
  const inProcess = COMMANDS[command];
  return inProcess ? runInProcess(inProcess, args, bareEnv()) : mintlinkProcess(command, ...args);
};

describe.concurrent('an operator command given wrong arguments', () => {
  it.each([
    [['settings', 'frob'], 'Unknown argument "frob".'],
    [['settings', 'show', '--json'], 'Unknown argument "--json".'],
    [['settings'], 'Missing argument "show".'],
    [['secrets', 'nope'], 'Unknown argument "nope".'],
    [['secrets', 'reseal', 'now'], 'Unknown argument "now".'],
    [['secrets'], 'Missing argument "reseal".'],
    [['doctor', '--bogus'], 'Unknown argument "--bogus".'],
    [['doctor', '--bogus', '--help'], 'Unknown argument "--bogus".'],
    [['manifest', '--socket'], 'Unknown argument "--socket".'],
  ])('%j: names what was wrong on the first line, then the usage, exit 2', async ([command = '', ...args], line) => {
    const [refused, help] = await Promise.all([mintlink(command, ...args), mintlink(command, '--help')]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^Usage: npm run -s ${command}\\b`));
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `${line}\n\n${help.stdout}` });
  });

  it('answers as its function does when the built artifact runs it, for each command', async () => {
    const cases: string[][] = [['settings', 'frob'], ['secrets'], ['doctor', '--bogus', '--help']];
    const ran = await Promise.all(
      cases.map(([command = '', ...args]) =>
        Promise.all([mintlinkProcess(command, ...args), mintlink(command, ...args)]),
      ),
    );
    for (const [fromArtifact, fromFunction] of ran) {
      expect(fromArtifact.code).toBe(2);
      expect(fromArtifact).toEqual(fromFunction);
    }
  });

  it('keeps an argument with a newline or a terminal escape on that one line', async () => {
    const refused = await mintlink('settings', 'show\n\u001b[2J');
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe('Unknown argument "show\\n\\u001b[2J".');
  });

  it('prints the usage on stdout for --help after the verb too, exit 0', async () => {
    const [afterVerb, alone] = await Promise.all([mintlink('settings', 'show', '--help'), mintlink('settings', '-h')]);
    expect(afterVerb).toEqual({ code: 0, stdout: alone.stdout, stderr: '' });
    expect(alone.stdout).toMatch(/^Usage: npm run -s settings -- show\n/);
  });

  it('answers the same through npm run', async () => {
    const refused = await npmRun(repoRoot, 'doctor', ['--bogus'], bareEnv());
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^Unknown argument "--bogus"\.\n\nUsage: npm run -s doctor\n/);
  });

  it('names an unknown command as node dist/mintlink.mjs is given it', async () => {
    const [refused, help] = await Promise.all([mintlinkProcess('frob'), mintlinkProcess('--help')]);
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `Unknown command "frob".\n\n${help.stdout}` });
  });
});
