/** A user's own sink on a run: a function that consumes the images' row batches beside img-etl's writers. */
import type { RowBatch } from '../schema/row.js';
import type { RunTap, RunTapContext } from './run-tap.js';

/**
 * A tap that gives the run's row batches (id order, de-duplicated, after the pipeline's stages; `run.table` says their
 * columns) to `write`, e.g. `rowSink((rows, run) => toCsv(rows, { path: 'tmaps.csv', table: run.table }))`. It must
 * read the batches to the end, or the run's writers stop. What it writes is its own: only files img-etl writes into
 * the run's folder are published atomically and listed in the manifest. A failure of `write` fails the run, and
 * nothing of it is published.
 */
export function rowSink(write: (rows: AsyncIterable<RowBatch>, run: RunTapContext) => Promise<unknown>): RunTap {
  return {
    open: (run) =>
      Promise.resolve({
        rows: async (batches) => {
          await write(batches, run);
        },
      }),
  };
}
