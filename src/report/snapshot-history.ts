/** The record count of every snapshot of a `--snapshot` folder, from their manifests: the report's history. */
import { join } from 'node:path';
import { FILE_NAMES } from '../snapshot/formats.js';
import { readManifest } from '../snapshot/read-manifest.js';
import { listSnapshots } from '../snapshot/snapshot-names.js';

/** One snapshot of the same output folder, for the count over time. */
export interface HistoryPoint {
  snapshot: string;
  started_at: string;
  records: number;
  complete: boolean;
}

/** Snapshots in the count over time, the newest. */
const HISTORY = 60;

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
