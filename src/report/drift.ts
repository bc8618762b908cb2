/**
 * The drift of a snapshot against an older one (added, removed, changed): between two folders by their indexes, else by
 * the diff of every row; for a run, by the indexes after it wrote, or streamed beside the writers (the older snapshot
 * read in a worker, so that a trap on its bytes spares the writers' parquet-wasm). A drift that cannot be had is a note
 * in the report, never a failed run.
 */
import { dirname, join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { DiffError } from '../snapshot/diff-error.js';
import { isFile } from '../load/file-system/path-kind.js';
import { arrowSchema } from '../load/arrow/arrow-schema.js';
import { diffIndexedFolders } from '../diff/index-diff.js';
import type { DiffSide } from '../diff/diff-side.js';
import { diffSnapshots, type DiffTotals } from '../diff/diff-snapshots.js';
import { readRowsInWorker } from '../diff/read-rows-in-worker.js';
import { resolveSnapshotFile } from '../snapshot/resolve-snapshot-file.js';
import { SnapshotIndexReader } from '../run/index/snapshot-index-reader.js';
import { listedFile } from '../snapshot/verify-snapshot-file.js';
import { FILE_NAMES, type Format } from '../snapshot/formats.js';
import { latestSnapshot } from '../snapshot/snapshot-names.js';
import { readSnapshotRows, type SnapshotRows } from '../snapshot/read-snapshot-rows.js';

/** What changed since an older snapshot (the diff of the two, by id): its counts and changed records per column. */
export type Drift = ReturnType<typeof driftOf>;

/** How a run gets its drift. */
export interface RunDrift {
  /** One more consumer of the run's Arrow batches, when the drift is the full diff computed while the run writes. */
  tap?: (batches: AsyncIterable<RecordBatch>) => Promise<void>;
  /** The drift, once the run's data files and, when `indexed`, its index are in `pending`. */
  outcome(pending: string, indexed: boolean): Promise<DriftOutcome>;
}

/**
 * The drift of a run writing snapshot `name` into `outDir` in `formats`, stopped once `signal` is aborted; undefined
 * when there is no older snapshot.
 */
export async function planRunDrift(
  outDir: string,
  name: string,
  formats: readonly Format[],
  signal?: AbortSignal,
): Promise<RunDrift | undefined> {
  const previous = await latestSnapshot(outDir);
  if (previous === undefined || previous === name) return undefined;
  const folder = join(outDir, previous);
  const note = (why: string): DriftOutcome => ({ driftNote: `no comparison with ${previous}: ${why}` });
  // Arrow IPC reads with no decompression: a snapshot's images.arrow when it has one, else its Parquet.
  const older = (await isFile(join(folder, FILE_NAMES.arrow))) ? join(folder, FILE_NAMES.arrow) : folder;
  // Only bytes a manifest vouches for are compared.
  const unlisted = await unvouched(older);
  if (unlisted !== undefined) {
    const outcome = note(unlisted);
    return { outcome: () => Promise.resolve(outcome) };
  }
  const olderIndex = await SnapshotIndexReader.open(folder);
  if (!('none' in olderIndex)) {
    await olderIndex.close(); // read again once the run wrote its own: it is not held while the run writes
    return { outcome: indexedDrift(folder, older, formats, signal, note) };
  }
  if (!formats.some((f) => f !== 'csv')) {
    const outcome = note(
      `a run compares what it writes as Parquet or Arrow, not CSV, with a snapshot without an index`,
    );
    return { outcome: () => Promise.resolve(outcome) };
  }
  let settle: (outcome: DriftOutcome) => void = () => undefined;
  const outcome = new Promise<DriftOutcome>((resolve) => (settle = resolve));
  const tap = async (batches: AsyncIterable<RecordBatch>) => settle(await streamDrift(older, previous, batches));
  return { tap, outcome: () => outcome };
}

/**
 * The drift by the merge of the older snapshot's index (in `folder`, its rows in `older`) with the run's, once the run
 * wrote its files; a note when the run's ids are not ascending or an index or file cannot be read.
 */
function indexedDrift(
  folder: string,
  older: string,
  formats: readonly Format[],
  signal: AbortSignal | undefined,
  note: (why: string) => DriftOutcome,
): RunDrift['outcome'] {
  return async (pending, indexed) => {
    if (!indexed) return note("this run's ids are not in ascending order");
    const written = formats.includes('arrow') ? FILE_NAMES.arrow : FILE_NAMES.parquet;
    const newer = formats.some((f) => f !== 'csv') ? join(pending, written) : pending;
    try {
      const totals = await diffIndexedFolders({ folder, rows: older }, { folder: pending, rows: newer }, signal);
      if (totals === undefined) return note(`${folder}'s or this run's index cannot be read`);
      return { drift: driftOf(older, totals) };
    } catch (error) {
      if (!(error instanceof DiffError)) throw error;
      return note(error.message);
    }
  };
}

/** Why the data file of the snapshot at `older` cannot be checked before it is read, if it cannot. */
async function unvouched(older: string): Promise<string | undefined> {
  try {
    const file = await resolveSnapshotFile(older);
    return (await listedFile(file.path)) === undefined
      ? `${file.path} is not listed in a manifest beside it`
      : undefined;
  } catch (error) {
    if (!(error instanceof DiffError)) throw error;
    return error.message;
  }
}

/**
 * Rows per batch read from the older snapshot: it is read while parquet-wasm writes the new one, so both hold memory
 * at once; small batches keep the reader's share small.
 */
const OLD_BATCH_ROWS = 1024;

/** What the drift of a run came to: the drift, or why there is none. */
export interface DriftOutcome {
  drift?: Drift;
  driftNote?: string;
}

/**
 * The drift a diff's totals come to against the snapshot at `against`, its changed fields ranked most first (ties in
 * column order).
 */
export function driftOf(against: string, totals: DiffTotals) {
  const { added, removed, changed, unchanged, fields } = totals;
  const ranked = [...fields].sort((a, b) => b[1] - a[1]).map(([field, count]) => ({ field, count }));
  return { against, added, removed, changed, unchanged, fields: ranked };
}

/** Compares the run's batches with the snapshot at `older` (a snapshot folder); read every batch of `batches`. */
async function streamDrift(older: string, name: string, batches: AsyncIterable<RecordBatch>): Promise<DriftOutcome> {
  const iterator = batches[Symbol.asyncIterator]();
  // The diff stops its sides when it ends; this side's source is shared with the writers: it is drained below instead.
  const unstoppable: AsyncIterable<RecordBatch> = {
    [Symbol.asyncIterator]: () => ({
      next: () => iterator.next(),
      return: () => Promise.resolve({ done: true, value: undefined }),
    }),
  };
  let oldRows: SnapshotRows | undefined;
  try {
    oldRows = await readRowsInWorker(older, OLD_BATCH_ROWS); // a trap there spares the writers
    const first = await iterator.next();
    const chained = (async function* () {
      if (first.done !== true) yield first.value;
      yield* unstoppable;
    })();
    const schema = first.done === true ? arrowSchema() : first.value.schema;
    const newSide: DiffSide = { path: 'this run', schema, batches: chained };
    return { drift: await diffDrift(oldRows, newSide) };
  } catch (error) {
    if (!(error instanceof DiffError)) throw error;
    return { driftNote: `no comparison with ${name}: ${error.message}` };
  } finally {
    await oldRows?.close();
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next());
  }
}

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
  try {
    const newRows = await readSnapshotRows(newer);
    try {
      return await diffDrift(oldRows, newRows);
    } finally {
      await newRows.close();
    }
  } finally {
    await oldRows.close();
  }
}

/** The drift of `newer` against `older` by the diff of every row, read to the end for its totals. */
async function diffDrift(older: SnapshotRows, newer: DiffSide) {
  const diff = diffSnapshots(older, newer);
  for await (const entries of diff) void entries; // the totals are what the report needs
  return driftOf(older.path, diff.totals);
}
