/**
 * A batch's rows as CSV records, formatted when their pages were staged (page-columns.ts): what the builtin CSV writer
 * writes for those rows, with that neutralise setting, for that table.
 */
import type { RowBatch } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';

/** The CSV records of a batch's rows, each LF-terminated, one after the other. */
export interface CsvRecords {
  bytes: Uint8Array;
  neutraliseFormulas: boolean;
  table: Table;
}

/** The batch's CSV records when they were formatted with this setting for this table, else undefined. */
export function stagedCsvOf(batch: RowBatch, neutraliseFormulas: boolean, table: Table): Uint8Array | undefined {
  const csv = (batch as { csv?: CsvRecords }).csv;
  return csv !== undefined && csv.neutraliseFormulas === neutraliseFormulas && csv.table === table
    ? csv.bytes
    : undefined;
}
