/** One side of a diff: what `diffSnapshots` reads of a snapshot, and the column it joins the two sides on. */
import type { RecordBatch, Schema, TypeMap } from 'apache-arrow';

/** The key column of a diff. */
export const ID_COLUMN = 'id';

/** One snapshot to compare: its schema and its rows in strictly ascending id order (`SnapshotRows` is one). */
export interface DiffSide {
  /** Names the side in errors, e.g. the data file's path. */
  readonly path: string;
  /** Arrow schema of every batch. */
  readonly schema: Schema<TypeMap>;
  /** The rows, read once. */
  readonly batches: AsyncIterable<RecordBatch>;
}
