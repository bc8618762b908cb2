/**
 * The 'csv-stringify' CSV engine: an adapter of csv-stringify's sync API behind the same interface as the 'builtin'
 * engine (csv-format.ts), and the reference that engine matches byte for byte. Each value is checked by its column's
 * type; csv-stringify casts it, timestamps (bigint microseconds) to ISO 8601 text that formula neutralisation leaves
 * alone.
 */
import { stringify, type Options } from 'csv-stringify/sync';
import { IMAGES } from '../../schema/columns.js';
import type { Row } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { formatTimestampMicros } from '../../schema/timestamp.js';
import { invalidValue } from '../../schema/encoding/invalid-value.js';

type Field = string | number | boolean | bigint | null;

/** The CSV header record of `table` (default the images), written by csv-stringify: the column names, LF-terminated. */
export function stringifyCsvHeader(neutraliseFormulas: boolean, table: Table = IMAGES): string {
  return stringify([table.names], stringifyOptions(neutraliseFormulas));
}

/**
 * The rows as CSV records written by csv-stringify, each LF-terminated; a value its column's type does not hold is a
 * LOAD_INVALID_VALUE error naming `place`.
 */
export function stringifyCsvRows(
  rows: readonly Row[],
  place: string,
  neutraliseFormulas: boolean,
  table: Table = IMAGES,
): string {
  const records = new Array<Field[]>(rows.length);
  for (let i = 0; i < rows.length; i++) records[i] = toRecord(rows, i, place, table);
  return records.length === 0 ? '' : stringify(records, stringifyOptions(neutraliseFormulas));
}

function stringifyOptions(neutraliseFormulas: boolean): Options {
  return {
    delimiter: ',',
    quote: '"',
    escape: '"',
    record_delimiter: '\n',
    // quote fields holding CR or LF; with an explicit record_delimiter csv-stringify would quote LF only
    quote_record_delimiter: true,
    eof: true,
    escape_formulas: neutraliseFormulas,
    cast: {
      boolean: (v) => (v ? 'true' : 'false'),
      number: (v) => (Object.is(v, -0) ? '-0' : String(v)),
      // Only timestamps are bigint here (int64 columns are safe-integer numbers): ISO text, never formula-neutralised.
      bigint: (v) => ({ value: formatTimestampMicros(v), escape_formulas: false }),
      string: (v) => (v === '' ? { value: '', quoted_empty: true } : v),
    },
  };
}

/** One row as csv-stringify fields, each value checked by its column's type; csv-stringify casts them. */
function toRecord(rows: readonly Row[], i: number, place: string, table: Table): Field[] {
  const row = rows[i]!;
  const { names, columns } = table;
  const record = new Array<Field>(names.length);
  for (let j = 0; j < names.length; j++) {
    const v = row[names[j]!];
    const type = columns[j]!.type;
    if (v !== null && !type.holds(v)) throw invalidValue(rows, i, names[j]!, v, type.expected, place);
    record[j] = v;
  }
  return record;
}
