/** The filter stage: keeps only the rows a pipeline's predicate accepts. */
import type { Row, RowBatch } from '../schema/row.js';

/** A stage over normalised rows: takes page-sized batches, yields page-sized batches. */
export type RowStage = (source: AsyncIterable<RowBatch>) => AsyncIterable<RowBatch>;

/** A stage that keeps only the rows for which `keep` is true (rejects pass through untouched). */
export function filterRows(keep: (row: Row) => boolean): RowStage {
  const stage: RowStage = async function* (source) {
    for await (const batch of source) yield { ...batch, rows: batch.rows.filter(keep) };
  };
  // the source text of `keep`: what a library pipeline's identity digests (pipeline-run-options.ts), not this wrapper's
  return Object.assign(stage, { toString: () => `filterRows(${String(keep)})` });
}
