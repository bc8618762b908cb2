/**
 * The report of any snapshot, read back from its files: the rows from images.parquet or images.arrow (the diff's
 * streaming reader) or, in a snapshot of CSV only, from images.csv with the columns' types (read-csv-rows.ts), the
 * manifest and the collections table beside them when there, the drift against an older snapshot when one is named,
 * and the records of the snapshots beside it in a `--snapshot` folder.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readCsvRows } from '../diff/read-csv-rows.js';
import { readSnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { resolveSnapshotFileOrCsv } from '../snapshot/resolve-snapshot-file.js';
import { checkListedRows, verifySnapshotFile } from '../snapshot/verify-snapshot-file.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { listSnapshots } from '../snapshot/snapshot-names.js';
import { manifestText } from '../snapshot/read-manifest.js';
import { buildReport } from './build-report.js';
import { readCollections } from './collection-owners.js';
import type { ReportData } from './report-data.js';
import { ReportStats } from './report-stats.js';
import { rowsFromBatch } from '../snapshot/rows-from-batch.js';
import { driftBetween } from './drift.js';
import { snapshotHistory } from './snapshot-history.js';

/** Options of `reportSnapshot`. */
export interface ReportSnapshotOptions {
  /** An older snapshot to report the changes against; default none. */
  against?: string;
}

/** A report read back from a snapshot. */
export interface SnapshotReport {
  data: ReportData;
  /** The snapshot's name: its folder's. */
  title: string;
}

/**
 * Reads the snapshot at `path` (as `img-etl diff` names one; a snapshot of CSV only too, read with the columns' types)
 * and builds its report.
 */
export async function reportSnapshot(path: string, options: ReportSnapshotOptions = {}): Promise<SnapshotReport> {
  const file = await resolveSnapshotFileOrCsv(path);
  const stats = new ReportStats();
  if (file.format === 'csv') {
    const listed = await verifySnapshotFile(file.path); // readSnapshotRows checks the others
    for await (const rows of readCsvRows(file.path)) for (const row of rows) stats.addRow(row);
    checkListedRows(file.path, listed, stats.gathered().records);
  } else {
    const rows = await readSnapshotRows(file.path);
    try {
      for await (const batch of rows.batches) for (const row of rowsFromBatch(batch)) stats.addRow(row);
    } finally {
      await rows.close();
    }
  }
  const folder = dirname(file.path);
  const manifest = await manifestText(join(folder, FILE_NAMES.manifest));
  const facts = manifest === undefined ? undefined : (parseObject(manifest) ?? undefined);
  const { owners, names, note } = await readCollections(folder);
  const { against } = options;
  const csvOnly = `${file.path} is CSV; the drift compares snapshots read from Parquet or Arrow`;
  const comparable = against !== undefined && file.format !== 'csv';
  const drift = comparable ? await driftBetween(against, file.path) : undefined;
  const driftNote = against !== undefined && !comparable ? `no comparison with ${against}: ${csvOnly}` : undefined;
  // A `latest` symlink names the snapshot folder it points at: its name is the title, its base the history's.
  const named = await realpath(folder).catch(() => folder);
  const base = dirname(named);
  const inBase = (await listSnapshots(base)).includes(basename(named));
  const history = inBase ? await snapshotHistory(base, basename(named)) : [];
  const inputs = { source: file.path, manifest: facts, owners, names, ownersNote: note, drift, driftNote, history };
  const data = buildReport(stats.gathered(), inputs);
  return { data, title: basename(named) };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    const object = value !== null && typeof value === 'object' && !Array.isArray(value);
    return object ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
