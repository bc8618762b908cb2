/**
 * The rows of a record batch of a table's schema, as normalisation made them (row.ts): int64 and float64 as numbers,
 * timestamps as bigint microseconds, booleans, text (category and json too) as strings, null. What reads rows (CSV,
 * a pipeline's stages, the report's tap) reads these when the rows were staged as columns (page-columns.ts).
 */
import * as arrow from 'apache-arrow';
import type { PageRef, Reject, Row, RowValue } from '../schema/row.js';
import type { LoadBatch } from './arrow-batches.js';
import type { Table } from '../schema/table.js';

/** Each row of `batch`, a batch of `table`'s schema, in the table's column order. */
export function rowsOfBatch(batch: arrow.RecordBatch, table: Table): Row[] {
  const n = batch.numRows;
  const rows = new Array<Row>(n);
  for (let i = 0; i < n; i++) rows[i] = { ...table.nullRow };
  table.names.forEach((name, j) => {
    const data = batch.data.children[j]!;
    const read = readerOf(data);
    const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
    const { offset } = data;
    for (let i = 0, at = offset; i < n; i++, at++) {
      if (bitmap === undefined || ((bitmap[at >> 3]! >> (at & 7)) & 1) === 1) rows[i]![name] = read(at);
    }
  });
  return rows;
}

/**
 * A batch of the rows of `arrow` (read from it only when something reads `rows`, once) and of `rejects`. Do not
 * spread it: that reads the rows.
 */
export function columnsBatch(source: PageRef, arrow: arrow.RecordBatch, rejects: Reject[], table: Table): LoadBatch {
  let rows: Row[] | undefined;
  return {
    source,
    arrow,
    rejects,
    get rows() {
      return (rows ??= rowsOfBatch(arrow, table));
    },
  };
}

/** A reader of the value at a position of `data` that is not null. */
function readerOf(data: arrow.Data): (at: number) => RowValue {
  const { type } = data;
  if (arrow.DataType.isDictionary(type)) {
    const dictionary = [...(data.dictionary as arrow.Vector<arrow.Utf8>)];
    const indices = data.values as Int32Array;
    return (at) => dictionary[indices[at]!]!;
  }
  if (arrow.DataType.isUtf8(type)) {
    const bytes = data.values as Uint8Array;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const offsets = data.valueOffsets as Int32Array;
    return (at) => text.toString('utf8', offsets[at], offsets[at + 1]);
  }
  if (arrow.DataType.isBool(type)) {
    const bits = data.values as Uint8Array;
    return (at) => ((bits[at >> 3]! >> (at & 7)) & 1) === 1;
  }
  if (arrow.DataType.isTimestamp(type)) {
    const values = data.values as BigInt64Array;
    return (at) => values[at]!;
  }
  if (arrow.DataType.isInt(type)) {
    const values = data.values as BigInt64Array;
    return (at) => Number(values[at]!);
  }
  const values = data.values as Float64Array;
  return (at) => values[at]!;
}
