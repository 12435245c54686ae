import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // End-to-end files start real app processes; a few in parallel keeps the run short on 2 cores.
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
  },
});
