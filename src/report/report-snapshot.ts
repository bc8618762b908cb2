/**
 * The report of any snapshot, read back from its files: the rows from images.parquet or images.arrow (the diff's
 * streaming reader), the manifest and the collections table beside them when there, the drift against an older
 * snapshot when one is named, and the records of the snapshots beside it in a `--snapshot` folder.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readSnapshotRows } from '../diff/read-snapshot-rows.js';
import { FILE_NAMES } from '../run/formats.js';
import { listSnapshots } from '../run/snapshot-folders.js';
import { buildReport } from './build-report.js';
import { readCollectionOwners } from './collection-owners.js';
import type { ReportData } from './report-data.js';
import { ReportStats } from './report-stats.js';
import { rowsFromBatch } from './rows-from-batch.js';
import { driftBetween, snapshotHistory } from './snapshot-drift.js';

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

/** Reads the snapshot at `path` (as `img-etl diff` names one) and builds its report. */
export async function reportSnapshot(path: string, options: ReportSnapshotOptions = {}): Promise<SnapshotReport> {
  const rows = await readSnapshotRows(path);
  const stats = new ReportStats();
  try {
    for await (const batch of rows.batches) for (const row of rowsFromBatch(batch)) stats.addRow(row);
  } finally {
    await rows.close();
  }
  const folder = dirname(rows.path);
  const manifest = await readFile(join(folder, FILE_NAMES.manifest), 'utf8').catch(() => undefined);
  const facts = manifest === undefined ? undefined : (parseObject(manifest) ?? undefined);
  const { owners, note } = await readCollectionOwners(folder);
  const drift = options.against === undefined ? undefined : await driftBetween(options.against, rows.path);
  const base = dirname(folder);
  const inBase = (await listSnapshots(base)).includes(basename(folder));
  const history = inBase ? (await snapshotHistory(base)).filter((h) => h.snapshot <= basename(folder)) : [];
  const inputs = { source: rows.path, manifest: facts, owners, ownersNote: note, drift, history };
  const data = buildReport(stats.gathered(), inputs);
  return { data, title: basename(folder) };
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
