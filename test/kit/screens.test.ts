import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * expectScreen and the obsolete-golden reporter, run as `npm test` runs them: vitest itself, in a process of
 * its own, on a small project of fixture tests in a temporary directory (its goldens there too).
 */

const kit = new URL('.', import.meta.url).pathname;
const vitestBin = new URL('../../node_modules/vitest/vitest.mjs', import.meta.url).pathname;
const project = mkdtempSync(join(tmpdir(), 'screens-kit-'));
const screens = join(project, 'screens');

afterAll(() => rmSync(project, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
}

/** A test file calling expectScreen for each name with its text. */
function screenTest(path: string, goldens: Record<string, string>): void {
  const calls = Object.entries(goldens)
    .map(
      ([name, text]) =>
        `it(${JSON.stringify(name)}, () => expectScreen(${JSON.stringify(name)}, ${JSON.stringify(text)}));`,
    )
    .join('\n');
  write(path, `import { expectScreen } from ${JSON.stringify(join(kit, 'screens.ts'))};\n${calls}\n`);
}

/** Runs the project's tests as `npm test` would, with CI set or not; resolves with the exit code and output. */
async function runVitest(ci: boolean): Promise<{ code: number | null; output: string }> {
  write(
    'vitest.config.mjs',
    `export default { test: { root: ${JSON.stringify(project)}, include: ['test/**/*.test.ts'], globals: true,
      ${ci ? '' : "update: 'new',"}
      reporters: ['default', ${JSON.stringify(join(kit, 'obsolete-screens-reporter.ts'))}] } };\n`,
  );
  const env: Record<string, string | undefined> = {
    ...process.env,
    MINTLINK_SCREENS_DIR: screens,
    CI: ci ? 'true' : '',
  };
  delete env.MINTLINK_SCREENS_PRODUCED; // the reporter of this run gives its own
  const child = spawn(process.execPath, [vitestBin, 'run', '--config', join(project, 'vitest.config.mjs')], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

describe('golden screens under npm test', () => {
  // Three vitest runs one after the other, each a few seconds on a busy machine.
  it(
    'CI never writes a golden, fails on a missing or changed one, and a golden no test produces fails the run',
    { timeout: 120_000 },
    async () => {
      screenTest('test/links.test.ts', { 'links/link-form--empty': 'the form\n' });
      screenTest('test/home.test.ts', { 'home/home--requester': 'your requests\n' });
      write('screens/home/home--requester.txt', 'your old requests\n');

      const ci = await runVitest(true);
      expect(ci.code).toBe(1);
      expect(ci.output).toMatch(/2 failed/);
      expect(existsSync(join(screens, 'links/link-form--empty.txt'))).toBe(false);
      expect(readFileSync(join(screens, 'home/home--requester.txt'), 'utf8')).toBe('your old requests\n');

      // A developer's run writes the new golden (and a changed one still fails until -u).
      write('screens/home/home--requester.txt', 'your requests\n');
      const local = await runVitest(false);
      expect(local.output).not.toMatch(/Obsolete/);
      expect(local.code).toBe(0);
      expect(readFileSync(join(screens, 'links/link-form--empty.txt'), 'utf8')).toBe('the form\n');

      // A surface removed: its golden stays behind, and the run fails naming it, though every test passed.
      write('screens/links/link-result--done.txt', 'the link\n');
      const obsolete = await runVitest(true);
      expect(obsolete.output).toMatch(/2 passed/);
      expect(obsolete.output).toContain('Obsolete golden screens');
      expect(obsolete.output).toContain('links/link-result--done.txt');
      expect(obsolete.output).not.toContain('link-form--empty.txt');
      expect(obsolete.code).toBe(1);
    },
  );
});
