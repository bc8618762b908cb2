import { defineConfig } from 'vitest/config';

// CI asks for a JSON report too (.ci/run checks that no test was skipped).
const report = process.env['CI_TEST_REPORT_JSON'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: report ? ['default', 'json'] : ['default'],
    outputFile: report ? { json: report } : undefined,
    // End-to-end tests start servers and child processes; the machine has two cores.
    maxWorkers: 2,
  },
});
