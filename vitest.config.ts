import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// CI asks for a JSON report too (.ci/run checks that no test was skipped).
const report = process.env['CI_TEST_REPORT_JSON'];

// A developer's IMG_ETL_* variables (a token, options) never change what a test runs: the CLI the tests start reads
// them, and the test processes and their children inherit this environment.
for (const name of Object.keys(process.env)) if (name.startsWith('IMG_ETL_')) delete process.env[name];

/**
 * The end-to-end files first, then the rest, each the larger first: the workers take files in this order, so the long
 * files start early and the short ones fill the end, and the workers finish together. The same order on every
 * machine, a fresh clone included (vitest's own order follows the durations of the last run, when it has them). An
 * end-to-end file (one that runs the real CLI) is named `*.e2e.test.ts`, in the folder of the behaviour it checks.
 */
class EndToEndFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const e2e = (f: TestSpecification) => (f.moduleId.endsWith('.e2e.test.ts') ? 0 : 1);
    const size = (f: TestSpecification) => statSync(f.moduleId).size;
    return Promise.resolve([...files].sort((a, b) => e2e(a) - e2e(b) || size(b) - size(a)));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: report ? ['default', 'json'] : ['default'],
    outputFile: report ? { json: report } : undefined,
    // End-to-end tests start servers and child processes; the machine has two cores. A third worker runs while the
    // others wait on their CLI runs: vitest took 4:52 and 4:55 with three, 5:04 and 5:15 with two (as much CPU time).
    maxWorkers: 3,
    // A worker keeps the modules it imported from one test file to the next (no file changes globals, env or mocks
    // that outlive it): importing them again for each of the 136 files cost a third of the unit tests' time.
    isolate: false,
    sequence: { sequencer: EndToEndFirst },
    // The built program (dist/) is node's to load, as the program loads it: runCliHere runs it in the test's process.
    server: { deps: { external: [/\/dist\//] } },
  },
});
