import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // End-to-end files start real app processes; a few in parallel keeps the run short on 2 cores.
    maxWorkers: 3,
    // A worker imports the app's modules once for all the files it runs, not once per file: importing (vite's
    // transform of src/) was most of the run's time. Tests share no module state: each builds its own app,
    // fakes and database.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The third fails a run that leaves a golden screen no test produces (test/kit/screens.ts).
    reporters: ['default', 'json', './test/kit/obsolete-screens-reporter.ts'],
    outputFile: { json: 'test-results.json' },
  },
});
