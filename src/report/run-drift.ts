/**
 * The drift of a `--snapshot` run against the snapshot `latest` points at. When that snapshot has an index
 * (images.index, which every `--snapshot` run writes with the images; see snapshot-index.ts), the drift is the merge
 * of its index with the run's (diffByIndex), after the run wrote its files: only the batches holding records whose
 * hashes differ are read back, from both snapshots. An older snapshot without an index falls back to the full diff of
 * every row, computed while the run writes (stream-drift.ts). A drift that cannot be had is a note in the report,
 * never a failed run, a WebAssembly trap on the older snapshot's bytes included (a damaged file under a manifest
 * rewritten to fit it), which leaves the parquet-wasm instance it happens in unusable (wasm-trap.ts): the index's
 * drift reads the older snapshot in this process, as the run's last use of parquet-wasm (after the run wrote its files
 * and the report read its owners back); the full diff reads it in a worker thread (read-rows-in-worker.ts), as it runs
 * beside the writers.
 */
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { DiffError } from '../snapshot/diff-error.js';
import { isFile } from '../load/file-system/path-kind.js';
import { diffIndexedFolders } from '../diff/index-diff.js';
import { resolveSnapshotFile } from '../snapshot/resolve-snapshot-file.js';
import { SnapshotIndexReader } from '../run/index/snapshot-index-reader.js';
import { listedFile } from '../snapshot/verify-snapshot-file.js';
import { FILE_NAMES, type Format } from '../snapshot/formats.js';
import { latestSnapshot } from '../snapshot/snapshot-names.js';
import { driftOf, streamDrift, type DriftOutcome } from './stream-drift.js';

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
