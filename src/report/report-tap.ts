/**
 * The report of a `--snapshot` run as a tap on it: its numbers (ReportStats) and the snapshot index gathered from the
 * images' rows as they are written, the drift against the snapshot before (drift.ts), and report.html,
 * report.json, load.sql and load.py written into the pending folder before the manifest is committed
 * (run-report.ts).
 */
import type { OpenRunTap, RunTap, RunTapContext } from '../run/run-tap.js';
import { snapshotIndexTap } from '../run/index/snapshot-index-tap.js';
import { ReportStats } from './report-stats.js';

/**
 * A tap that writes a run's report and its images.index. Give it after any other tap that reads or writes Parquet: the
 * index's drift is the run's last use of parquet-wasm (see drift.ts).
 */
export function reportTap(): RunTap {
  return { open: openReport };
}

/** Starts what the report gathers while the run writes: its numbers, the index and the drift. */
async function openReport(run: RunTapContext): Promise<OpenRunTap> {
  const stats = new ReportStats();
  const index = await snapshotIndexTap().open(run);
  const { planRunDrift } = await import('./drift.js'); // loaded once a run with a report publishes
  const drift = await planRunDrift(run.baseDir, run.name, run.formats, run.signal);
  let indexed = false;
  return {
    rows: (batches) => index.rows!(stats.observe(batches)),
    arrow: drift?.tap,
    afterImages: async () => {
      const files = await index.afterImages!();
      indexed = files.length > 0;
      return files;
    },
    beforeCommit: async (manifest) => {
      const { writeRunReport } = await import('./run-report.js'); // loaded for runs with a report only
      const { pending, dataDir, baseDir, table, neutraliseFormulas } = run;
      const outcome = async () => (await drift?.outcome(pending, indexed)) ?? {};
      return writeRunReport({ pending, dataDir, baseDir, manifest, stats, table, neutraliseFormulas, drift: outcome });
    },
    abort: () => index.abort!(),
  };
}
