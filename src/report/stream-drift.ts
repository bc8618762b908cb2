/**
 * The drift of a run against the snapshot before it, computed while the run writes: the run's Arrow record batches
 * (built once for Parquet and Arrow) are one more consumer of the write, and the older snapshot is read beside them,
 * so the new files are never read back. The diff is diffSnapshots'. A diff that fails (the older snapshot unreadable,
 * say) becomes a note in the report, never a failed run: the batches are still read to the end, so the writers they
 * are shared with go on, and the older snapshot's Parquet is read in a worker (read-rows-in-worker.ts), so a trap on
 * its bytes leaves this process's parquet-wasm, which the writers use, unharmed.
 */
import type { RecordBatch } from 'apache-arrow';
import { DiffError } from '../snapshot/diff-error.js';
import type { DiffSide } from '../diff/diff-side.js';
import { diffSnapshots, type DiffTotals } from '../diff/diff-snapshots.js';
import type { SnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { readRowsInWorker } from '../diff/read-rows-in-worker.js';
import { arrowSchema } from '../load/arrow/arrow-schema.js';
import type { Drift } from './report-data.js';

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
export function driftOf(against: string, totals: DiffTotals): Drift {
  const { added, removed, changed, unchanged, fields } = totals;
  const ranked = [...fields].sort((a, b) => b[1] - a[1]).map(([field, count]) => ({ field, count }));
  return { against, added, removed, changed, unchanged, fields: ranked };
}

/** Compares the run's batches with the snapshot at `older` (a snapshot folder); read every batch of `batches`. */
export async function streamDrift(
  older: string,
  name: string,
  batches: AsyncIterable<RecordBatch>,
): Promise<DriftOutcome> {
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
    oldRows = await readRowsInWorker(older, { batchSize: OLD_BATCH_ROWS }); // a trap there spares the writers
    const first = await iterator.next();
    const chained = (async function* () {
      if (first.done !== true) yield first.value;
      yield* unstoppable;
    })();
    const schema = first.done === true ? arrowSchema() : first.value.schema;
    const newSide: DiffSide = { path: 'this run', schema, batches: chained };
    const diff = diffSnapshots(oldRows, newSide);
    for await (const entries of diff) void entries; // the totals are what the report needs
    return { drift: driftOf(oldRows.path, diff.totals) };
  } catch (error) {
    if (!(error instanceof DiffError)) throw error;
    return { driftNote: `no comparison with ${name}: ${error.message}` };
  } finally {
    await oldRows?.close();
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next());
  }
}
