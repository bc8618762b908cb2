/**
 * The rows of a record batch of a table's schema, as normalisation made them (row.ts): int64 and float64 as numbers,
 * timestamps as bigint microseconds, booleans, text (category and json too) as strings, null. What reads rows (CSV,
 * a pipeline's stages, the report's tap) reads these when the rows were staged as columns (page-columns.ts).
 */
import * as arrow from 'apache-arrow';
import type { PageRef, Reject, Row, RowValue } from '../../schema/row.js';
import type { LoadBatch } from './arrow-batches.js';
import type { CsvRecords } from '../csv/csv-records.js';
import type { Table } from '../../schema/table.js';
import { bufferView } from '../../text/buffer-view.js';
import { isValid } from './arrow-gather.js';

/**
 * Each row of `batch`, a batch of `table`'s schema (and maybe more columns after), in the table's column order; or
 * the `n` rows from row `from`.
 */
export function rowsOfBatch(batch: arrow.RecordBatch, table: Table, from = 0, n = batch.numRows - from): Row[] {
  const rows = new Array<Row>(n);
  for (let i = 0; i < n; i++) rows[i] = { ...table.nullRow };
  table.names.forEach((name, j) => {
    const data = batch.data.children[j]!;
    const read = readerOf(data);
    const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
    // the bitmap read here rather than through valuesOf: one call a value less, on every value of every row
    for (let i = 0, at = data.offset + from; i < n; i++, at++) {
      if (bitmap === undefined || ((bitmap[at >> 3]! >> (at & 7)) & 1) === 1) rows[i]![name] = read(at);
    }
  });
  return rows;
}

/** A reader of the values of one column, by row: null where null. */
export function valuesOf(data: arrow.Data): (row: number) => RowValue {
  const read = readerOf(data);
  return (row) => (isValid(data, row) ? read(data.offset + row) : null);
}

/**
 * A batch of the picked rows (row `rows[k]` of `batches[k]`) and of `rejects`, staged as columns: with their Arrow
 * batch when it was gathered, and their rows read only when something reads `rows`, once, straight from the picked
 * batches. A CSV run written from the staged CSV records reads no row. Do not spread it:
 * that reads the rows.
 */
export function columnsBatch(
  source: PageRef,
  picks: { batches: readonly arrow.RecordBatch[]; rows: readonly number[]; rowless?: boolean },
  gathered: arrow.RecordBatch | undefined,
  rejects: Reject[],
  table: Table,
  csv?: CsvRecords,
): LoadBatch & { size: number } {
  let rows: Row[] | undefined;
  return {
    source,
    size: picks.rows.length,
    rejects,
    ...(csv === undefined ? {} : { csv }),
    get arrow(): arrow.RecordBatch {
      if (gathered === undefined) throw new TypeError('a batch of staged columns: its Arrow batch was not gathered');
      return gathered;
    },
    get rows() {
      // a page staged for a write that reads no row holds none (page-columns.ts); the run's plan never reads them
      if (picks.rowless === true) throw new TypeError('a batch of staged columns: its pages staged no rows');
      return (rows ??= rowsOfPicks(picks, table));
    },
  };
}

/** The picked rows, read run by run (consecutive rows of one batch) from the batches they are in. */
function rowsOfPicks(picks: { batches: readonly arrow.RecordBatch[]; rows: readonly number[] }, table: Table): Row[] {
  const rows: Row[] = [];
  const { batches } = picks;
  for (let k = 0; k < picks.rows.length;) {
    let end = k + 1;
    while (end < picks.rows.length && batches[end] === batches[k] && picks.rows[end] === picks.rows[end - 1]! + 1)
      end++;
    rows.push(...rowsOfBatch(batches[k]!, table, picks.rows[k], end - k));
    k = end;
  }
  return rows;
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
    const text = bufferView(data.values as Uint8Array);
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
