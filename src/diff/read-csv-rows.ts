/**
 * Reading a snapshot's CSV back into rows with the types of its table's columns (each type's `fromCsv`), streaming:
 * memory holds one chunk of the file and the rows of one batch. The CSV is the one img-etl writes (csv-field.ts):
 * RFC 4180 with LF record ends, a header of column names, `""` for the empty string and an empty field for null.
 * Columns are matched by the header's names: a column the file lacks is null, a column the table lacks is skipped.
 */
import type { ReadStream } from 'node:fs';
import { openRegularFile, whyUnreadable } from '../load/file-system/read-regular-file.js';
import { IMAGES } from '../schema/columns.js';
import type { Row, RowValue } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { DiffError } from '../snapshot/diff-error.js';

/** Rows per batch given. */
const BATCH_ROWS = 1024;

/** One CSV field: its text, and whether it was quoted (`""` is the empty string, an empty field null). */
interface Field {
  text: string;
  quoted: boolean;
}

/** The rows of the CSV at `path` of `table` (default the images), in batches, in file order. */
export async function* readCsvRows(path: string, table: Table = IMAGES): AsyncGenerator<Row[]> {
  let places: (number | undefined)[] | undefined; // for each table column, its field in a record
  let records = 0; // data records read
  let batch: Row[] = [];
  let stream: ReadStream | undefined;
  const fail = (why: string) => DiffError.of('DIFF_UNREADABLE', `diff: ${path}: ${why}`);
  try {
    stream = (await openRegularFile(path, { followLink: true })).handle.createReadStream({ highWaterMark: 1 << 20 });
    stream.setEncoding('utf8');
    for await (const parsed of parseCsv(stream as AsyncIterable<string>)) {
      for (const record of parsed) {
        if (places === undefined) {
          places = headerPlaces(table, record, fail);
          continue;
        }
        batch.push(csvRow(table, places, record, ++records, fail));
        if (batch.length === BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } catch (cause) {
    if (cause instanceof DiffError) throw cause;
    throw DiffError.of('DIFF_UNREADABLE', `diff: ${whyUnreadable(path, cause)}`, cause);
  } finally {
    stream?.destroy();
  }
}

/** For each column of `table`, its field in a record, read from the header; fails when it names none of them. */
function headerPlaces(table: Table, header: Field[], fail: (why: string) => DiffError): (number | undefined)[] {
  const names = header.map((f) => f.text);
  const places = table.names.map((name) => names.indexOf(name)).map((k) => (k < 0 ? undefined : k));
  if (places.every((k) => k === undefined)) throw fail(`its header names none of the ${table.name} columns`);
  return places;
}

/** Data record number `n` as a row of `table`, each field read by its column's type; fails on a value it refuses. */
function csvRow(
  table: Table,
  places: readonly (number | undefined)[],
  record: Field[],
  n: number,
  fail: (why: string) => DiffError,
): Row {
  const row: Row = {};
  for (let j = 0; j < table.columns.length; j++) {
    const column = table.columns[j]!;
    const field = places[j] === undefined ? undefined : record[places[j]!];
    let value: RowValue | undefined = null;
    if (field !== undefined && (field.quoted || field.text !== '')) {
      value = column.type.fromCsv(field.text);
      if (value === undefined) {
        const shown = JSON.stringify(field.text.slice(0, 40));
        throw fail(`record ${n} has ${shown} in column ${column.name}, not ${column.type.expected}`);
      }
    }
    row[column.name] = value;
  }
  return row;
}

/** Where the parser is between characters: the record and field so far, and whether inside quotes. */
interface CsvState {
  record: Field[];
  text: string;
  quoted: boolean;
  inQuotes: boolean;
  /** A quote ended the quoted part, unless the next character is a quote too. */
  quoteSeen: boolean;
  /** The current record has a character. */
  started: boolean;
}

/** The records of CSV text given in chunks, a chunk's complete records at a time. */
async function* parseCsv(chunks: AsyncIterable<string>): AsyncGenerator<Field[][]> {
  const state: CsvState = { record: [], text: '', quoted: false, inQuotes: false, quoteSeen: false, started: false };
  const special = /[,\n"]/g;
  for await (const chunk of chunks) {
    const records = scanChunk(state, chunk, special);
    if (records.length > 0) yield records;
  }
  if (state.started || state.record.length > 0) {
    state.record.push({ text: state.text, quoted: state.quoted });
    yield [state.record];
  }
}

/** The records one chunk completes, `state` carried over from the chunk before to the next; `special` finds `,\n"`. */
function scanChunk(state: CsvState, chunk: string, special: RegExp): Field[][] {
  const records: Field[][] = [];
  let i = 0;
  while (i < chunk.length) {
    if (state.quoteSeen) {
      state.quoteSeen = false;
      if (chunk.charCodeAt(i) === 0x22) {
        state.text += '"';
        state.inQuotes = true;
        i++;
        continue;
      }
    }
    if (state.inQuotes) {
      i = scanQuoted(state, chunk, i);
      continue;
    }
    special.lastIndex = i;
    const found = special.exec(chunk);
    if (found === null) {
      state.text += chunk.slice(i);
      state.started = true;
      break;
    }
    state.text += chunk.slice(i, found.index);
    i = found.index + 1;
    state.started = true;
    if (found[0] === '"') [state.inQuotes, state.quoted] = [true, true];
    else endField(state, found[0] === '\n', records);
  }
  return records;
}

/** Reads a quoted part from `i` to its closing quote, or to the chunk's end; returns where to go on. */
function scanQuoted(state: CsvState, chunk: string, i: number): number {
  const end = chunk.indexOf('"', i);
  if (end < 0) {
    state.text += chunk.slice(i);
    return chunk.length;
  }
  state.text += chunk.slice(i, end);
  [state.inQuotes, state.quoteSeen] = [false, true];
  return end + 1;
}

/** Ends the field at a comma or a line end; a line end also ends the record, added to `records`. */
function endField(state: CsvState, endsRecord: boolean, records: Field[][]): void {
  state.record.push({ text: state.text, quoted: state.quoted });
  [state.text, state.quoted] = ['', false];
  if (endsRecord) {
    records.push(state.record);
    [state.record, state.started] = [[], false];
  }
}
