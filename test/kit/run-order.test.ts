import { expect, it } from 'vitest';
import { expectedDurationMs, runOrder, type TestFileFacts } from './run-order.js';

// The texts are built from pieces so that this file's own text does not read as starting a browser or a process.
const startsProcess = (name: string) => `${name}('node', []);\n`;
const startsBrowser = `import { openPage } from './${'browser'}-kit.js';\n`;
const lines = (size: number) => 'x'.repeat(size);
const file = (project: string, path: string, text: string, lastDurationMs?: number): TestFileFacts =>
  lastDurationMs === undefined ? { project, path, text } : { project, path, text, lastDurationMs };
const order = (files: readonly TestFileFacts[]) => runOrder(files).map(({ project, path }) => `${project}:${path}`);

it('runs, in a clean clone, files in a browser first, then those starting more processes, then the longest', () => {
  const files = [
    file('e2e', 'small-in-process.e2e.test.ts', lines(1_000)),
    file('e2e', 'one-process.e2e.test.ts', startsProcess('fakes.startProcess') + lines(1_000)),
    file('e2e', 'large-in-process.e2e.test.ts', lines(6_000)),
    file('e2e', 'two-processes.e2e.test.ts', startsProcess('spawn') + startsProcess('execFile') + lines(1_000)),
    file('e2e', 'browser.e2e.test.ts', startsBrowser + lines(1_000)),
  ];
  expect(order(files)).toEqual([
    'e2e:browser.e2e.test.ts',
    'e2e:two-processes.e2e.test.ts',
    'e2e:one-process.e2e.test.ts',
    'e2e:large-in-process.e2e.test.ts',
    'e2e:small-in-process.e2e.test.ts',
  ]);
});

it('keeps the files of one project together, first the project with the longest file', () => {
  const files = [
    file('alpha', 'long.test.ts', lines(20_000)),
    file('alpha', 'short.test.ts', lines(100)),
    file('beta', 'short.e2e.test.ts', lines(100)),
    file('beta', 'browser.e2e.test.ts', startsBrowser),
    file('alpha', 'middle.test.ts', lines(5_000)),
  ];
  expect(order(files)).toEqual([
    'beta:browser.e2e.test.ts',
    'beta:short.e2e.test.ts',
    'alpha:long.test.ts',
    'alpha:middle.test.ts',
    'alpha:short.test.ts',
  ]);
});

it('takes a file’s last run time over the estimate, and estimates the files that have none', () => {
  const notRunYet = file('e2e', 'new.e2e.test.ts', startsProcess('fakes.startProcess'));
  const files = [
    file('e2e', 'quick-browser.e2e.test.ts', startsBrowser, 2_000),
    file('e2e', 'slow-in-process.e2e.test.ts', lines(100), 60_000),
    notRunYet,
  ];
  expect(expectedDurationMs(notRunYet)).toBeGreaterThan(2_000);
  expect(order(files)).toEqual([
    'e2e:slow-in-process.e2e.test.ts',
    'e2e:new.e2e.test.ts',
    'e2e:quick-browser.e2e.test.ts',
  ]);
});
