import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report feeds the closing "N passed, N failed" line of .ci/run.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/e2e/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Real Chromium, after everything else and one file at a time: a page's frame timing
        // and its link lab's timers are what these tests measure, and a machine busy with
        // the rest of the suite starves them.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
