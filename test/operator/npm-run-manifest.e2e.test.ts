import { outcome } from '../kit/app-process.js';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { httpManifest } from '../../src/operator/http-manifest.js';
import { runManifestCommand } from '../../src/operator/manifest-command.js';
import { runInProcess } from '../kit/command-in-process.js';

/*
 * The operator's command as they run it, from the build: `npm run -s manifest` is `node dist/mintlink.mjs
 * manifest` (package.json), so one run goes through npm, one starts the built artifact directly (npm's own start
 * would cost a second each), and the others run the command's function in the test's process as main() does
 * (test/kit/command-in-process.ts). What the HTTP-mode manifest holds is http-manifest.test.ts's.
 */
// The bundle has manifest.yml built in as text (esbuild's text loader); the test's process reads the same text.
vi.mock('../../manifest.yml', () => ({
  default: readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'),
}));

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const manifestYaml = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
const run = promisify(execFile);

const npmRunManifest = (...args: string[]) =>
  outcome(
    run('npm', ['run', '--silent', 'manifest', '--', ...args], {
      cwd: repoRoot,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    }),
  );
const manifestProcess = (...args: string[]) =>
  outcome(run(process.execPath, ['dist/mintlink.mjs', 'manifest', ...args], { cwd: repoRoot }));
const manifestCommand = (...args: string[]) => runInProcess(runManifestCommand, args, {});

describe('npm run manifest', () => {
  it('prints manifest.yml as it is without --http', async () => {
    const result = await npmRunManifest();
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(manifestYaml);
  });

  it('prints the HTTP-mode manifest with --http', async () => {
    const generated = await httpManifest(manifestYaml, 'https://mintlink.example.com/slack/events');
    const results = await Promise.all([
      manifestProcess('--http', 'https://mintlink.example.com'),
      manifestCommand('--http=https://mintlink.example.com/'),
    ]);
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(generated);
    }
  });

  it('prints its usage with --help', async () => {
    const result = await manifestCommand('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run -s manifest \[-- --http <public https URL> \[--distributed\]\]/);
    expect(result.stdout).toContain('--http <URL>');
  });

  it.each([
    [['--http', 'http://mintlink.example.com'], 'Slack sends its requests only to https:// URLs'],
    [['--http', 'not a url'], 'is not a usable public URL: it is not a URL'],
    [['--http'], '--http needs the public https URL of the app.'],
    [['--socket'], 'Unknown argument "--socket".'],
  ])('refuses %j with a clear message, the usage, and exit 2', async (args, message) => {
    const result = await manifestCommand(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: npm run -s manifest');
  });
});
