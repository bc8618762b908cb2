/**
 * What changed between snapshots: the diff of two (diffSnapshots, streaming, by id), and the record count of every
 * snapshot of the same `--snapshot` folder from their manifests.
 */
import { dirname, join } from 'node:path';
import { diffIndexedFolders } from '../diff/index-diff.js';
import { resolveSnapshotFile } from '../snapshot/resolve-snapshot-file.js';
import { diffSnapshots } from '../diff/diff-snapshots.js';
import { readSnapshotRows, type SnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { readManifest } from '../snapshot/read-manifest.js';
import { listSnapshots } from '../snapshot/snapshot-names.js';
import type { Drift, HistoryPoint } from './report-data.js';
import { driftOf } from './stream-drift.js';

/** Snapshots in the count over time, the newest. */
const HISTORY = 60;

/**
 * Added, removed and changed records of `newer` against `older` (each a snapshot folder or data file): by their
 * indexes when both have one (diffByIndex), else by the diff of every row.
 */
export async function driftBetween(older: string, newer: string): Promise<Drift> {
  const [oldFile, newFile] = [await resolveSnapshotFile(older), await resolveSnapshotFile(newer)];
  const indexed = (file: { path: string }) => ({ folder: dirname(file.path), rows: file.path });
  const totals = await diffIndexedFolders(indexed(oldFile), indexed(newFile));
  if (totals !== undefined) return driftOf(oldFile.path, totals);
  const oldRows = await readSnapshotRows(older);
  let newRows: SnapshotRows;
  try {
    newRows = await readSnapshotRows(newer);
  } catch (error) {
    await oldRows.close();
    throw error;
  }
  try {
    const diff = diffSnapshots(oldRows, newRows);
    for await (const entries of diff) void entries; // the totals are what the report needs
    return driftOf(oldRows.path, diff.totals);
  } finally {
    await oldRows.close();
    await newRows.close();
  }
}

/**
 * The records of each snapshot folder in `baseDir` whose manifest img-etl wrote, oldest first (the newest 60; of those
 * named up to `upTo` when given).
 */
export async function snapshotHistory(baseDir: string, upTo?: string): Promise<HistoryPoint[]> {
  const points: HistoryPoint[] = [];
  for (const name of await listSnapshots(baseDir)) {
    if (upTo !== undefined && name > upTo) break; // listed in order
    const manifest: Record<string, unknown> | undefined = await readManifest(join(baseDir, name, FILE_NAMES.manifest));
    if (manifest === undefined || typeof manifest['records_written'] !== 'number') continue;
    const startedAt = typeof manifest['started_at'] === 'string' ? manifest['started_at'] : '';
    const [records, complete] = [manifest['records_written'], manifest['complete'] === true];
    points.push({ snapshot: name, started_at: startedAt, records, complete });
  }
  return points.slice(-HISTORY);
}

/**
 * The history of a run's report: the snapshots of `baseDir` before it (snapshotHistory up to its name, so the same
 * points `img-etl report` reads back once it is published), then the run's own point; the newest 60 in all.
 */
export async function runHistory(baseDir: string, run: HistoryPoint): Promise<HistoryPoint[]> {
  const before = (await snapshotHistory(baseDir, run.snapshot)).filter((h) => h.snapshot !== run.snapshot);
  return [...before, run].slice(-HISTORY);
}
