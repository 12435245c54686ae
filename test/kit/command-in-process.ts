import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ran } from './app-process.js';

/** An operator command's function, as main() runs it for `node dist/mintlink.mjs <name> <args>`. */
export type OperatorCommand = (args: readonly string[]) => Promise<number>;

let turn: Promise<unknown> = Promise.resolve();

/**
 * Runs an operator command's own function (runDoctorCommand, runSettingsCommand...) in the test's process as
 * main() runs it in a process of its own: with `env` as its whole environment, in an empty working directory
 * (no .env of a developer's is read), what it writes to stdout and stderr kept. Its exit code is what the
 * function returns (main() makes it the process's). The process's environment, working directory and output
 * are the process's own, so runs take turns. What only the process does (main()'s dispatch, the bundle) is
 * tested by starting it: one test per path.
 */
export function runInProcess(
  command: OperatorCommand,
  args: readonly string[],
  env: Record<string, string>,
): Promise<Ran> {
  const run = turn.then(() => runAlone(command, args, env));
  turn = run.catch(() => undefined);
  return run;
}

async function runAlone(command: OperatorCommand, args: readonly string[], env: Record<string, string>): Promise<Ran> {
  const kept = { ...process.env };
  const cwd = process.cwd();
  const emptyDir = mkdtempSync(join(tmpdir(), 'mintlink-command-')); // the run's TMPDIR, before env replaces it
  const ownWrites = [process.stdout, process.stderr].map((stream) => Object.getOwnPropertyDescriptor(stream, 'write'));
  let stdout = '';
  let stderr = '';
  const keep =
    (add: (text: string) => void): typeof process.stdout.write =>
    (chunk: string | Uint8Array, ...rest: unknown[]) => {
      add(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((arg) => typeof arg === 'function');
      if (typeof done === 'function') queueMicrotask(() => done());
      return true;
    };
  replaceEnvironment(env);
  process.chdir(emptyDir);
  process.stdout.write = keep((text) => (stdout += text));
  process.stderr.write = keep((text) => (stderr += text));
  try {
    const code = await command(args);
    return { code, stdout, stderr };
  } finally {
    for (const [i, stream] of [process.stdout, process.stderr].entries()) {
      const own = ownWrites[i];
      if (own) Object.defineProperty(stream, 'write', own);
      else Reflect.deleteProperty(stream, 'write'); // its prototype's write again
    }
    process.chdir(cwd);
    replaceEnvironment(kept);
    rmSync(emptyDir, { recursive: true, force: true });
  }
}

function replaceEnvironment(env: Record<string, string | undefined>): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}
