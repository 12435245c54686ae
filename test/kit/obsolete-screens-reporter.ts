import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/**
 * Fails the run when a golden in test/screens/ is no longer produced by any test (its surface was removed or
 * renamed, and the file would otherwise stay as a screen no one checks). Every expectScreen call notes its
 * name in a file this reporter gives the workers (MINTLINK_SCREENS_PRODUCED); at the end of a run that
 * included every test file calling expectScreen, each with every test run, a golden not named there is
 * obsolete. A partial run (one file, a -t filter, a skipped test) cannot tell, and says so in one line.
 *
 * A reporter because only the main process sees the whole run; it sets the exit code, as a failed test does.
 */
export default class ObsoleteScreensReporter implements Reporter {
  private root = process.cwd();
  private producedDir: string | undefined;

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.producedDir = mkdtempSync(join(tmpdir(), 'mintlink-screens-'));
    // Workers are started after this: they inherit the variable.
    process.env.MINTLINK_SCREENS_PRODUCED = join(this.producedDir, 'produced.txt');
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const producedFile = process.env.MINTLINK_SCREENS_PRODUCED;
    const produced = new Set(producedFile ? readLines(producedFile) : []);
    if (this.producedDir) rmSync(this.producedDir, { recursive: true, force: true });
    const screenTests = testFiles(this.root).filter((file) => readFileSync(file, 'utf8').includes('expectScreen('));
    const ran = new Map(testModules.map((m) => [m.moduleId, m]));
    const states = screenTests.map((file) =>
      [...(ran.get(file)?.children.allTests() ?? [])].map((t) => t.result().state),
    );
    // Failures are reported as such; a run without any screen test has nothing to say about goldens.
    if (states.some((s) => s.includes('failed')) || states.every((s) => s.length === 0)) return;
    if (states.some((s) => s.length === 0 || s.some((state) => state !== 'passed'))) {
      process.stdout.write('golden screens: not every screen test ran, so obsolete goldens were not looked for\n');
      return;
    }
    const dir = process.env.MINTLINK_SCREENS_DIR ?? join(this.root, 'test', 'screens');
    const obsolete = goldens(dir).filter((name) => !produced.has(name));
    if (obsolete.length === 0) return;
    process.stderr.write(
      `\nObsolete golden screens: no test produces ${obsolete.length === 1 ? 'this file' : 'these files'} any more ` +
        `(delete ${obsolete.length === 1 ? 'it' : 'them'} if the surface is gone, or restore the test):\n` +
        obsolete.map((name) => `  ${relative(this.root, join(dir, `${name}.txt`))}\n`).join('') +
        '\n',
    );
    process.exitCode = 1;
  }
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return []; // no test wrote a golden
  }
}

/** The test files under `root`/test/, but the kit's own (test/kit/ tests the kit with fixtures of its own). */
function testFiles(root: string): string[] {
  const dir = join(root, 'test');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts') && !path.startsWith('kit/'))
    .map((path) => join(dir, path));
}

/** The goldens in `dir`, by name (`links/link-form--empty` for links/link-form--empty.txt). */
function goldens(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.txt'))
      .map((path) => path.slice(0, -'.txt'.length));
  } catch {
    return [];
  }
}
