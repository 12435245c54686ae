/** What the order needs to know of one test file. */
export interface TestFileFacts {
  readonly project: string;
  readonly path: string;
  /** The file's source text: what it starts (a browser, processes) and how much it tests. */
  readonly text: string;
  /** How long it took in this checkout's last run (vitest's cache), when it ran. */
  readonly lastDurationMs?: number;
}

// Rough costs on the 2-core machine, for the order only: a file in a browser starts a sandbox and Chromium; each
// process a file starts is a `node` start; past those, a file takes about as long as it is long.
const BROWSER_MS = 15_000;
const PROCESS_MS = 4_000;
const MS_PER_CHARACTER = 0.5;
const STARTS_A_BROWSER = /browser-kit|playwright/;
const STARTS_A_PROCESS = /\b(?:startProcess|useAppProcess|AppProcess\.start|spawn|spawnSync|execFile|execFileSync)\(/g;

/**
 * How long a file should take: its last run's time when vitest's cache has it (a developer's checkout), otherwise
 * an estimate from what its text starts and its length (a clean clone, as in CI, has no cache).
 */
export function expectedDurationMs(file: TestFileFacts): number {
  if (file.lastDurationMs !== undefined) return file.lastDurationMs;
  const browser = STARTS_A_BROWSER.test(file.text) ? BROWSER_MS : 0;
  const processes = (file.text.match(STARTS_A_PROCESS)?.length ?? 0) * PROCESS_MS;
  return browser + processes + file.text.length * MS_PER_CHARACTER;
}

/**
 * The order to run files in: longest first, so that the run does not end waiting on one long file that started
 * late. Files of one project stay together, first the project that has the longest file: a worker takes the next
 * file only when it is of its own project (it keeps the modules it imported), and a project change costs a new
 * worker that imports the app again.
 */
export function runOrder<F extends TestFileFacts>(files: readonly F[]): F[] {
  const expected = new Map(files.map((file) => [file, expectedDurationMs(file)]));
  const longestOfProject = new Map<string, number>();
  for (const [file, ms] of expected) {
    longestOfProject.set(file.project, Math.max(ms, longestOfProject.get(file.project) ?? 0));
  }
  const work = (file: F) => expected.get(file) ?? 0;
  const longestInProject = (file: F) => longestOfProject.get(file.project) ?? 0;
  return [...files].sort(
    (a, b) =>
      longestInProject(b) - longestInProject(a) ||
      a.project.localeCompare(b.project) ||
      work(b) - work(a) ||
      a.path.localeCompare(b.path),
  );
}
