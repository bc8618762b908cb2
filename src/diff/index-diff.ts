/**
 * The diff of two snapshots that both have an index (snapshot-index.ts): the merge of their ids gives the added and
 * removed records and equal hashes the unchanged ones; only the batches holding a row whose hash differs are read and
 * compared. Whole batches, not single rows: where most records changed, slicing out each row cost twice the diff.
 */
import { readSnapshotRows, type SnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { DiffError } from '../snapshot/diff-error.js';
import { diffSnapshots, type DiffTotals } from './diff-snapshots.js';
import { SnapshotIndexReader } from '../run/index/snapshot-index-reader.js';
import { join } from 'node:path';
import { isFile } from '../load/file-system/path-kind.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { verifySnapshotFile } from '../snapshot/verify-snapshot-file.js';

/**
 * Rows per batch read from Parquet: read after the run wrote, while parquet-wasm still holds the memory it grew to;
 * small batches keep the readers' share small.
 */
const BATCH_ROWS = 1024;

/** One side: where its rows are read from (a snapshot folder or data file, as readSnapshotRows takes), its index. */
export interface IndexedSnapshot {
  path: string;
  index: SnapshotIndexReader;
}

/**
 * Merges two indexes by id, reading each once: the records added, removed and the same, and the rows they say are the
 * same record with other values (their positions in each file).
 */
async function mergeIndexes(old: SnapshotIndexReader, now: SnapshotIndexReader) {
  const merged = { added: 0, removed: 0, same: 0, oldPositions: [] as number[], newPositions: [] as number[] };
  let [oldLive, newLive] = [await old.ready(), await now.ready()];
  while (oldLive && newLive) {
    while (old.hasRow() && now.hasRow()) {
      const [a, b] = [old.id(), now.id()];
      if (a < b) {
        merged.removed++;
        old.next();
      } else if (a > b) {
        merged.added++;
        now.next();
      } else {
        if (old.sameHash(now)) merged.same++;
        else {
          merged.oldPositions.push(old.position);
          merged.newPositions.push(now.position);
        }
        old.next();
        now.next();
      }
    }
    [oldLive, newLive] = [await old.ready(), await now.ready()];
  }
  for (; oldLive; oldLive = await old.ready()) for (; old.hasRow(); old.next()) merged.removed++;
  for (; newLive; newLive = await now.ready()) for (; now.hasRow(); now.next()) merged.added++;
  return merged;
}

/**
 * The totals of the diff of `older` and `newer` (see the module comment); a DiffError when a file cannot be read, the
 * signal's reason once `signal` is aborted.
 */
export async function diffByIndex(
  older: IndexedSnapshot,
  newer: IndexedSnapshot,
  signal?: AbortSignal,
): Promise<DiffTotals> {
  const merged = await mergeIndexes(older.index, newer.index);
  const totals: DiffTotals = {
    added: merged.added,
    removed: merged.removed,
    changed: 0,
    unchanged: merged.same,
    oldRows: older.index.rows,
    newRows: newer.index.rows,
    fields: new Map(),
  };
  const sides: SnapshotRows[] = [];
  try {
    // Opened even when no hash differs: opening checks each data file against its manifest (and its rows against its
    // index), as the full diff would; a damaged data file is not vouched for by its index.
    for (const [side, positions] of [
      [older, merged.oldPositions],
      [newer, merged.newPositions],
    ] as const) {
      const rows = await readSnapshotRows(side.path, { positions, batchSize: BATCH_ROWS });
      sides.push(rows);
      if (rows.rows !== undefined && rows.rows !== side.index.rows) throw mismatch(rows.path, side.index.rows);
    }
    if (merged.oldPositions.length === 0) return totals;
    const diff = diffSnapshots(sides[0]!, sides[1]!, { signal });
    for await (const entries of diff) void entries; // the totals are what is wanted
    const { changed, fields } = diff.totals;
    const candidates = merged.oldPositions.length;
    // A record that differs with equal hashes: an index is not of its data file.
    if (changed > candidates) throw mismatch(`${sides[0]!.path} or ${sides[1]!.path}`, undefined);
    return { ...totals, changed, unchanged: totals.unchanged + candidates - changed, fields };
  } finally {
    for (const side of sides) await side.close();
  }
}

function mismatch(path: string, rows: number | undefined): DiffError {
  const count = rows === undefined ? '' : `: the index has ${rows} rows`;
  return DiffError.of('DIFF_UNREADABLE', `diff: ${path} does not match its images.index${count}`);
}

/** Where a snapshot's index is (its folder) and where its rows are read from (as readSnapshotRows takes). */
export interface IndexedFolder {
  folder: string;
  rows: string;
}

/**
 * Whether the index in `folder` may be trusted: its manifest lists it and its size and sha256 match, or there is no
 * manifest beside it (a run's pending folder, before its manifest is written). A stale index (copied from another run)
 * or a tampered one would otherwise give a drift of data it is not the index of.
 */
async function vouchedIndex(folder: string): Promise<boolean> {
  try {
    if ((await verifySnapshotFile(join(folder, FILE_NAMES.index))) !== undefined) return true;
  } catch (error) {
    if (error instanceof DiffError) return false;
    throw error;
  }
  return !(await isFile(join(folder, FILE_NAMES.manifest)));
}

/**
 * diffByIndex of two snapshot folders' indexes; undefined when either has no index this version reads or none its
 * manifest vouches for (the reason is not needed: the caller falls back to the full diff).
 */
export async function diffIndexedFolders(
  older: IndexedFolder,
  newer: IndexedFolder,
  signal?: AbortSignal,
): Promise<DiffTotals | undefined> {
  const opened: SnapshotIndexReader[] = [];
  try {
    for (const side of [older, newer]) {
      if (!(await vouchedIndex(side.folder))) return undefined;
      const index = await SnapshotIndexReader.open(side.folder);
      if ('none' in index) return undefined;
      opened.push(index);
    }
    // Indexes of tables with other columns (a pipeline's derived ones) hash other values: the full diff compares them.
    if (opened[0]!.schemaVersion !== opened[1]!.schemaVersion) return undefined;
    return await diffByIndex({ path: older.rows, index: opened[0]! }, { path: newer.rows, index: opened[1]! }, signal);
  } finally {
    for (const index of opened) await index.close();
  }
}
