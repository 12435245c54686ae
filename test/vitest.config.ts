import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './kit/longest-first-sequencer.js';

/**
 * Files that need dist/ (they start `node dist/mintlink.mjs` or import the built modules): every
 * `*.e2e.test.ts`, and these two.
 */
const NEEDS_BUILD = [
  'test/**/*.e2e.test.ts',
  'test/operator/show-settings.test.ts',
  'test/platform/store/store.test.ts',
];

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    // End-to-end files start real app processes; a few in parallel keeps the run short on 2 cores.
    maxWorkers: 3,
    // A worker imports the app's modules once for all the files it runs, not once per file: importing (vite's
    // transform of src/) was most of the run's time. Tests share no module state: each builds its own app,
    // fakes and database.
    isolate: false,
    // Vite's transform of each file is kept on disk (node_modules/.experimental-vitest-cache, keyed by the file's
    // content, vitest's version and this configuration): a run after the first transforms only what changed.
    experimental: { fsModuleCache: true },
    // Longest files first, known from vitest's cache or, in a clean clone, estimated from what they start.
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The third fails a run that leaves a golden screen no test produces (test/kit/screens.ts).
    reporters: ['default', 'json', './test/kit/obsolete-screens-reporter.ts'],
    outputFile: { json: 'test-results.json' },
    // Vitest runs a project's global setup only when the run has a file of that project: one fast file
    // runs without building dist/.
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: NEEDS_BUILD,
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: NEEDS_BUILD,
          globalSetup: ['test/global-setup-build.ts', 'test/global-setup.ts'],
        },
      },
    ],
  },
});
