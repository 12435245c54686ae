import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, it } from 'vitest';

/*
 * expectScreen and the obsolete-golden reporter, run as `npm test` runs them: vitest itself, in a process of
 * its own, on a small project of fixture tests in a temporary directory (its goldens there too).
 */

const kit = new URL('.', import.meta.url).pathname;
const vitestBin = new URL('../../node_modules/vitest/vitest.mjs', import.meta.url).pathname;
const projects: string[] = [];

afterAll(() => {
  for (const project of projects) rmSync(project, { recursive: true, force: true });
});

/** A project of fixture tests in a temporary directory of its own, its goldens in its `screens/`. */
function fixtureProject() {
  const project = mkdtempSync(join(tmpdir(), 'screens-kit-'));
  projects.push(project);
  const screens = join(project, 'screens');
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), text);
  };
  return {
    write,
    /** The golden `name` as written in the project, if it is. */
    golden: (name: string): string | undefined => {
      const path = join(screens, `${name}.txt`);
      return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    },
    /** A test file calling expectScreen for each name with its text. */
    screenTest(path: string, goldens: Record<string, string>): void {
      const calls = Object.entries(goldens)
        .map(
          ([name, text]) =>
            `it(${JSON.stringify(name)}, () => expectScreen(${JSON.stringify(name)}, ${JSON.stringify(text)}));`,
        )
        .join('\n');
      write(path, `import { expectScreen } from ${JSON.stringify(join(kit, 'screens.ts'))};\n${calls}\n`);
    },
    /** Runs the project's tests as `npm test` would, with CI set or not; resolves with the exit code and output. */
    async run(ci: boolean): Promise<{ code: number | null; output: string }> {
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
    },
  };
}

// Each a vitest run of its own project, a few seconds on a busy machine: side by side.
describe.concurrent('golden screens under npm test', { timeout: 60_000 }, () => {
  it('CI never writes a golden, and fails on a missing or changed one', async ({ expect }) => {
    const fixture = fixtureProject();
    fixture.screenTest('test/links.test.ts', { 'links/link-form--empty': 'the form\n' });
    fixture.screenTest('test/home.test.ts', { 'home/home--requester': 'your requests\n' });
    fixture.write('screens/home/home--requester.txt', 'your old requests\n');

    const ci = await fixture.run(true);
    expect(ci.code).toBe(1);
    expect(ci.output).toMatch(/2 failed/);
    expect(fixture.golden('links/link-form--empty')).toBeUndefined();
    expect(fixture.golden('home/home--requester')).toBe('your old requests\n');
  });

  it('a developer’s run writes a missing golden', async ({ expect }) => {
    const fixture = fixtureProject();
    fixture.screenTest('test/links.test.ts', { 'links/link-form--empty': 'the form\n' });
    fixture.screenTest('test/home.test.ts', { 'home/home--requester': 'your requests\n' });
    fixture.write('screens/home/home--requester.txt', 'your requests\n');

    const local = await fixture.run(false);
    expect(local.output).not.toMatch(/Obsolete/);
    expect(local.code).toBe(0);
    expect(fixture.golden('links/link-form--empty')).toBe('the form\n');
  });

  it('a golden no test produces (a surface removed) fails the run, naming it, though every test passed', async ({
    expect,
  }) => {
    const fixture = fixtureProject();
    fixture.screenTest('test/links.test.ts', { 'links/link-form--empty': 'the form\n' });
    fixture.screenTest('test/home.test.ts', { 'home/home--requester': 'your requests\n' });
    fixture.write('screens/links/link-form--empty.txt', 'the form\n');
    fixture.write('screens/home/home--requester.txt', 'your requests\n');
    fixture.write('screens/links/link-result--done.txt', 'the link\n');

    const obsolete = await fixture.run(true);
    expect(obsolete.output).toMatch(/2 passed/);
    expect(obsolete.output).toContain('Obsolete golden screens');
    expect(obsolete.output).toContain('links/link-result--done.txt');
    expect(obsolete.output).not.toContain('link-form--empty.txt');
    expect(obsolete.code).toBe(1);
  });
});
