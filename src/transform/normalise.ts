/**
 * The normalise stage: validated records to output rows (sentinels and empty strings to null, timestamps to UTC
 * microseconds, unknown keys to `extra`).
 */
import { IMAGES } from '../schema/columns.js';
import { emptyNormalisationCounts, type NormalisationCounts } from '../schema/normalisation-counts.js';
import type { Row, RowBatch } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { extraJson } from './extra-json.js';
import type { ValidBatch } from './validate.js';

/**
 * Turns validated records of `table` into output rows: sentinels and empty strings to null (counted), timestamps to
 * UTC microseconds, unknown keys to `extra`.
 */
export async function* normalise(
  source: AsyncIterable<ValidBatch>,
  counts: NormalisationCounts = emptyNormalisationCounts(),
  table: Table = IMAGES,
): AsyncIterable<RowBatch> {
  for await (const batch of source) {
    yield { source: batch.source, rows: normaliseRecords(batch.records, counts, table), rejects: batch.rejects };
  }
}

/** Normalises validated records of `table` into rows, adding what it replaced to `counts`. */
export function normaliseRecords(
  records: readonly Record<string, unknown>[],
  counts: NormalisationCounts,
  table: Table = IMAGES,
): Row[] {
  const rows = new Array<Row>(records.length);
  for (let i = 0; i < records.length; i++) rows[i] = normaliseRecord(records[i]!, counts, table);
  return rows;
}

/**
 * Normalises one validated record of `table` into a row, adding what it replaced to `counts`: the type of the column
 * each key names normalises its value (a key the record lacks is null), each derived column derives its own, and the
 * keys no column names go to `extra` (extra-json.ts). The record is read through its own keys, as checkRecord does;
 * the row starts as a copy of the table's row of nulls, so that all rows have one shape (fast reads later).
 */
export function normaliseRecord(
  record: Record<string, unknown>,
  counts: NormalisationCounts,
  table: Table = IMAGES,
): Row {
  const row: Row = { ...table.nullRow };
  const { recordColumnByName } = table;
  let extra = false;
  for (const key in record) {
    const v = record[key];
    const column = recordColumnByName.get(key);
    if (column === undefined) extra = true;
    else if (v !== null && v !== undefined) row[key] = column.type.normalise(v, column, counts);
  }
  for (const column of table.derivedColumns) row[column.name] = column.derive!(record, row);
  if (extra) {
    row[table.extraColumn.name] = extraJson(record, table.knownKeys);
    counts.recordsWithExtra++;
  }
  return row;
}
