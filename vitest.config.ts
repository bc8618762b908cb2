import { configDefaults, defineConfig } from 'vitest/config';

// CI asks for a JSON report too (.ci/run checks that no test was skipped).
const report = process.env['CI_TEST_REPORT_JSON'];

/**
 * Tests that measure the CLI's peak memory against a target: run alone, after every other test file, so that the
 * timing of the machine's other work (which moves a run's peak by several MB) is not part of the measurement.
 */
const MEASURED_ALONE = ['test/e2e/files-memory.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: report ? ['default', 'json'] : ['default'],
    outputFile: report ? { json: report } : undefined,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MEASURED_ALONE],
          // End-to-end tests start servers and child processes; the machine has two cores.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'measured alone',
          include: MEASURED_ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
