/**
 * Sink: RFC 4180 CSV with a header row from COLUMNS, written with csv-stringify.
 * Records end with LF ("\n"), which RFC 4180 readers (DuckDB, pandas, polars, spreadsheets) accept and which
 * keeps the file identical on every platform; fields holding `,`, `"`, CR or LF are quoted, quotes doubled.
 * null is an empty field; an empty string is `""` so that the two stay apart for readers that care
 * (DuckDB with `allow_quoted_nulls = false`). Timestamps are ISO 8601 UTC with microseconds, booleans
 * `true`/`false`, numbers in their shortest round-trip form (`String(n)`, and `-0` for negative zero).
 */
import { stringify, type Options } from 'csv-stringify/sync';
import { COLUMNS } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { formatTimestampMicros } from '../schema/timestamp.js';
import { invalidValue } from './arrow-column-data.js';
import { AtomicFile } from './atomic-file.js';
import { closeSource } from './close-source.js';
import { encodeFailed } from './load-error.js';
import type { SinkResult } from './sink-result.js';

/** Options of `toCsv`. */
export interface CsvSinkOptions {
  /** Path of the `.csv` file to publish; required. */
  path: string;
  /** Prefix `'` to string values starting with `=`, `+`, `-`, `@`, tab or CR (and their full-width forms) against spreadsheet formula injection; numbers are never touched; default true. */
  neutraliseFormulas?: boolean;
}

type Field = string | number | boolean | null;

const NAMES = COLUMNS.map((c) => c.name);
const KINDS = COLUMNS.map((c) => c.kind);

/** Writes the rows of every batch to a CSV file at `options.path`, atomically; rejects are not written. */
export async function toCsv(source: AsyncIterable<RowBatch>, options: CsvSinkOptions): Promise<SinkResult> {
  let file: AtomicFile;
  try {
    file = await AtomicFile.create(options.path);
  } catch (error) {
    await closeSource(source);
    throw error;
  }
  try {
    const csvOptions = stringifyOptions(options.neutraliseFormulas ?? true);
    const encode = (records: Field[][]): string => {
      try {
        return stringify(records, csvOptions);
      } catch (cause) {
        throw encodeFailed(`writing csv file ${options.path}`, cause);
      }
    };
    await file.write(encode([COLUMNS.map((c) => c.name)]));
    let rows = 0;
    for await (const batch of source) {
      const records = new Array<Field[]>(batch.rows.length);
      for (let i = 0; i < batch.rows.length; i++) records[i] = toRecord(batch.rows, i, batch.source.url);
      if (records.length > 0) await file.write(encode(records));
      rows += records.length;
    }
    const digest = await file.commit();
    return { format: 'csv', path: options.path, rows, ...digest };
  } catch (error) {
    await file.abort();
    await closeSource(source); // in case the failure came before the sink started reading
    throw error;
  }
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
      string: (v) => (v === '' ? { value: '', quoted_empty: true } : v),
    },
  };
}

/** One row as csv-stringify fields, each value checked against its column's kind; timestamps become text, the rest csv-stringify casts. */
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
        record[j] = formatTimestampMicros(v);
        continue;
      default:
        if (typeof v !== 'string') throw invalidValue(rows, i, NAMES[j]!, v, 'a string', place);
    }
    record[j] = v as Field;
  }
  return record;
}
