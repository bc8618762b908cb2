import { COLUMNS, DERIVED_COLUMNS, EXTRA_COLUMN, RECORD_COLUMN_BY_NAME } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { extraJson } from './extra-json.js';
import type { ValidBatch } from './validate.js';

/** How many values normalisation replaced, per column: the audit trail the manifest carries. */
export interface NormalisationCounts {
  /** `"None / Other"` and `"None"` sentinels turned into null, per column. */
  sentinelToNull: Record<string, number>;
  /** Empty strings turned into null, per column. */
  emptyToNull: Record<string, number>;
  /** Records that had keys the schema does not know (kept in `extra`). */
  recordsWithExtra: number;
}

/** Fresh, all-zero counts. */
export function emptyNormalisationCounts(): NormalisationCounts {
  return { sentinelToNull: {}, emptyToNull: {}, recordsWithExtra: 0 };
}

/**
 * Turns validated records into output rows: sentinels and empty strings to null (counted), timestamps to UTC
 * microseconds, unknown keys to `extra`.
 */
export async function* normalise(source: AsyncIterable<ValidBatch>, counts: NormalisationCounts = emptyNormalisationCounts()): AsyncIterable<RowBatch> {
  for await (const batch of source) {
    yield { source: batch.source, rows: normaliseRecords(batch.records, counts), rejects: batch.rejects };
  }
}

/** Normalises validated records into rows, adding what it replaced to `counts`. */
export function normaliseRecords(records: readonly Record<string, unknown>[], counts: NormalisationCounts): Row[] {
  const rows = new Array<Row>(records.length);
  for (let i = 0; i < records.length; i++) rows[i] = normaliseRecord(records[i]!, counts);
  return rows;
}

/** A row of nulls in COLUMNS order: each row starts as a copy, so that all rows have one shape (fast reads later). */
const NULL_ROW: Row = Object.fromEntries(COLUMNS.map((c) => [c.name, null]));

/**
 * Normalises one validated record into a row, adding what it replaced to `counts`: the type of the column each key
 * names normalises its value (a key the record lacks is null), each derived column derives its own, and the keys no
 * column names go to `extra` (extra-json.ts). The record is read through its own keys, as checkRecord does.
 */
export function normaliseRecord(record: Record<string, unknown>, counts: NormalisationCounts): Row {
  const row: Row = { ...NULL_ROW };
  let extra = false;
  for (const key in record) {
    const v = record[key];
    const column = RECORD_COLUMN_BY_NAME.get(key);
    if (column === undefined) extra = true;
    else if (v !== null && v !== undefined) row[key] = column.type.normalise(v, column, counts);
  }
  for (const column of DERIVED_COLUMNS) row[column.name] = column.derive!(record);
  if (extra) {
    row[EXTRA_COLUMN.name] = extraJson(record);
    counts.recordsWithExtra++;
  }
  return row;
}
