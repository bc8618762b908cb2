/** Turns an Arrow record batch read back from a snapshot into rows, as the run held them. */
import type { RecordBatch, Vector } from 'apache-arrow';
import type { Column } from '../schema/column-type.js';
import { IMAGES } from '../schema/columns.js';
import type { Row, RowValue } from '../schema/row.js';
import type { Table } from '../schema/table.js';

/**
 * The rows of `table` in an Arrow record batch read back from a snapshot, as the run held them: int64 as number,
 * timestamps as bigint microseconds, the rest as Arrow gives them; a column the file lacks is null.
 */
export function rowsFromBatch(batch: RecordBatch, table: Table = IMAGES): Row[] {
  const rows: Row[] = Array.from({ length: batch.numRows }, () => ({}));
  for (const column of table.columns) {
    const vector = batch.getChild(column.name);
    for (let i = 0; i < batch.numRows; i++) rows[i]![column.name] = vector === null ? null : valueAt(vector, i, column);
  }
  return rows;
}

/** The value of `column` at row `i` of its `vector`, as a row holds it (int64 as number, timestamps as bigint). */
export function valueAt(vector: Vector, i: number, column: Column): RowValue {
  const value = (vector.get(i) ?? null) as RowValue;
  if (value !== null && column.type.kind === 'int64') return Number(value);
  if (value !== null && column.type.kind === 'timestamp') return timestampMicros(vector.data, i);
  return value;
}

/** The microseconds at row `i` of a timestamp column's chunks (Arrow's `get` gives fractional milliseconds). */
function timestampMicros(chunks: readonly { length: number; offset: number; values: unknown }[], i: number): bigint {
  for (const chunk of chunks) {
    if (i < chunk.length) return BigInt((chunk.values as BigInt64Array)[chunk.offset + i]!);
    i -= chunk.length;
  }
  throw new Error(`report: row ${i} is past the end of its batch`);
}
