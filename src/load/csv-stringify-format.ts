/**
 * The 'csv-stringify' CSV engine: rows to CSV text with csv-stringify's sync API, the reference the 'builtin' engine
 * (csv-format.ts) matches byte for byte. Each value is checked against its column's kind; csv-stringify casts it,
 * timestamps (bigint microseconds) to ISO 8601 text that formula neutralisation leaves alone.
 */
import { stringify, type Options } from 'csv-stringify/sync';
import { COLUMNS } from '../schema/columns.js';
import type { Row } from '../schema/row.js';
import { formatTimestampMicros } from '../schema/timestamp.js';
import { invalidValue } from './invalid-value.js';

type Field = string | number | boolean | bigint | null;

const NAMES = COLUMNS.map((c) => c.name);
const KINDS = COLUMNS.map((c) => c.kind);

/** The CSV header record, written by csv-stringify: the column names, LF-terminated. */
export function stringifyCsvHeader(neutraliseFormulas: boolean): string {
  return stringify([NAMES], stringifyOptions(neutraliseFormulas));
}

/** The rows as CSV records written by csv-stringify, each LF-terminated; a value that does not fit its column's kind is a LOAD_INVALID_VALUE error naming `place`. */
export function stringifyCsvRows(rows: readonly Row[], place: string, neutraliseFormulas: boolean): string {
  const records = new Array<Field[]>(rows.length);
  for (let i = 0; i < rows.length; i++) records[i] = toRecord(rows, i, place);
  return records.length === 0 ? '' : stringify(records, stringifyOptions(neutraliseFormulas));
}

function stringifyOptions(neutraliseFormulas: boolean): Options {
  return {
    delimiter: ',',
    quote: '"',
    escape: '"',
    record_delimiter: '\n',
    quote_record_delimiter: true, // quote fields holding CR or LF; with an explicit record_delimiter csv-stringify would quote LF only
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

/** One row as csv-stringify fields, each value checked against its column's kind; csv-stringify casts them. */
function toRecord(rows: readonly Row[], i: number, place: string): Field[] {
  const row = rows[i]!;
  const record = new Array<Field>(NAMES.length);
  for (let j = 0; j < NAMES.length; j++) {
    const v = row[NAMES[j]!];
    if (v === null) {
      record[j] = null;
      continue;
    }
    switch (KINDS[j]!) {
      case 'int64':
        if (!Number.isSafeInteger(v)) throw invalidValue(rows, i, NAMES[j]!, v, 'a safe integer', place);
        break;
      case 'float64':
        if (typeof v !== 'number') throw invalidValue(rows, i, NAMES[j]!, v, 'a number', place);
        break;
      case 'boolean':
        if (typeof v !== 'boolean') throw invalidValue(rows, i, NAMES[j]!, v, 'a boolean', place);
        break;
      case 'timestamp':
        if (typeof v !== 'bigint') throw invalidValue(rows, i, NAMES[j]!, v, 'bigint microseconds', place);
        break; // cast.bigint writes it
      default:
        if (typeof v !== 'string') throw invalidValue(rows, i, NAMES[j]!, v, 'a string', place);
    }
    record[j] = v as Field;
  }
  return record;
}
