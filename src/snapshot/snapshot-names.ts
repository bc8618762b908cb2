/**
 * Where a base folder keeps its snapshots: each in a folder named by its UTC start time, and `latest` pointing at the
 * newest one that succeeded.
 */
import { readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularFile } from '../load/file-system/read-regular-file.js';
import { FILE_NAMES } from './formats.js';
import { readManifest } from './read-manifest.js';

/** A snapshot folder's name (snapshotName). */
export const SNAPSHOT_NAME = /^\d{8}T\d{6}\.\d{3}Z$/;

/**
 * The folder name of a snapshot started at `date`: `20261121T134955.123Z` (UTC, sortable, safe in every file system).
 */
export function snapshotName(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '');
}

/** The most a `latest` pointer file holds: a snapshot folder's name and a line break, with room to spare. */
const POINTER_BYTES = 4096;

/** The snapshot folder `DIR/latest` points at, if any. */
export async function latestSnapshot(baseDir: string): Promise<string | undefined> {
  const latest = join(baseDir, 'latest');
  try {
    // not a link (EINVAL): a pointer file names one folder; anything else (a FIFO) is refused unread
    return await readlink(latest).catch(async () =>
      (await readRegularFile(latest, { maxBytes: POINTER_BYTES })).toString('utf8').trim(),
    );
  } catch {
    return undefined;
  }
}

/**
 * Snapshot folders in `DIR`, oldest first: only folders of a snapshot's name, never one being pruned
 * (`.img-etl-pruning-<name>`, run/publish/prune-folder.ts) or a staging or pending folder.
 */
export async function listSnapshots(baseDir: string): Promise<string[]> {
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && SNAPSHOT_NAME.test(e.name))
    .map((e) => e.name)
    .sort();
}

/**
 * Why no file but a run's belongs in `dir`: it is a snapshot folder (an img-etl manifest lists its files, one run's)
 * or a `--snapshot` folder (its snapshot folders and `latest`); undefined for any other folder, or none.
 */
export async function whySnapshotFolder(dir: string): Promise<string | undefined> {
  if ((await readManifest(join(dir, FILE_NAMES.manifest))) !== undefined)
    return "is a snapshot folder, which holds one run's files";
  if ((await latestSnapshot(dir)) !== undefined || (await listSnapshots(dir)).length > 0)
    return 'is a --snapshot folder, which holds snapshot folders and their latest';
  return undefined;
}
