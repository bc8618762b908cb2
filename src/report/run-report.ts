/**
 * The report of a `--snapshot` run, written into its folder before the manifest: the numbers gathered while the rows
 * were written (ReportStats on the row stream), the run's manifest, the owners from the collections table when the
 * run wrote one, the drift against the snapshot `latest` pointed at (gathered while the run wrote, see
 * drift.ts), and the records of every snapshot beside it.
 */
import { basename } from 'node:path';
import type { SinkResult } from '../load/sink-result.js';
import type { Manifest } from '../run/publish/manifest.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import type { Table } from '../schema/table.js';
import { buildReport } from './build-report.js';
import { readCollections } from './collection-owners.js';
import { categoryValues } from './loader-inputs.js';
import { COLLECTIONS_FILE } from './optional-inputs.js';
import type { ReportStats } from './report-stats.js';
import { runHistory } from './snapshot-history.js';
import type { DriftOutcome } from './drift.js';
import { writeReportFiles } from './write-report-files.js';

/** Where a run's report goes and what it is made from. */
export interface RunReportOptions {
  /** The folder the files are written into before they are published (the snapshot's pending folder). */
  pending: string;
  /** The snapshot folder, named by its start time. */
  dataDir: string;
  /** The `--snapshot` base folder holding it, `latest` and the older snapshots. */
  baseDir: string;
  /** The run's manifest, files so far included. */
  manifest: Manifest;
  /** The numbers gathered from the rows written. */
  stats: ReportStats;
  /** The images table the run wrote (a pipeline's derived columns included): the loaders read its columns. */
  table: Table;
  /** Whether the CSV files put a `'` before text that starts like a formula: the loaders read them so. */
  neutraliseFormulas: boolean;
  /**
   * The drift against the snapshot before (drift.ts), or why there is none; neither without one. Had after the
   * owners are read: it is the run's last use of parquet-wasm, which a trap on the older snapshot's bytes leaves
   * unusable (wasm-trap.ts).
   */
  drift: () => Promise<DriftOutcome>;
}

/** Writes report.html, report.json, load.sql and load.py into `pending`; resolves to the files written. */
export async function writeRunReport(options: RunReportOptions): Promise<SinkResult[]> {
  const { pending, dataDir, baseDir, manifest, stats } = options;
  const name = basename(dataDir);
  const gathered = stats.gathered();
  const { owners, names, note } = await readCollections(pending);
  const { drift, driftNote } = await options.drift();
  const { started_at, records_written: records, complete } = manifest;
  const history = await runHistory(baseDir, { snapshot: name, started_at, records, complete });
  const facts = manifest as unknown as Record<string, unknown>;
  const inputs = { source: 'run', manifest: facts, owners, names, ownersNote: note, drift, driftNote, history };
  const data = buildReport(gathered, inputs);
  const files = new Set([...manifest.files.map((f) => f.name), ...(owners === undefined ? [] : [COLLECTIONS_FILE])]);
  const categories = categoryValues(gathered.categories);
  const collections = [COLLECTIONS.files.parquet, COLLECTIONS.files.csv].some((f) => files.has(f));
  const { table, neutraliseFormulas } = options;
  return writeReportFiles(pending, data, name, { files, categories, collections, table, neutraliseFormulas });
}
