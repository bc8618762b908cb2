/**
 * Reading a snapshot's CSV back into rows with the types of its table's columns (each type's `fromCsv`), streaming:
 * memory holds one chunk of the file and the rows of one batch. The CSV is the one img-etl writes (csv-field.ts):
 * RFC 4180 with LF record ends, a header of column names, `""` for the empty string and an empty field for null.
 * Columns are matched by the header's names: a column the file lacks is null, a column the table lacks is skipped.
 */
import { createReadStream } from 'node:fs';
import { IMAGES } from '../schema/columns.js';
import type { Row, RowValue } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { DiffError } from './diff-error.js';

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
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const fail = (why: string) => new DiffError({ code: 'DIFF_UNREADABLE', message: `diff: ${path}: ${why}` });
  try {
    for await (const parsed of parseCsv(stream as AsyncIterable<string>)) {
      for (const record of parsed) {
        if (places === undefined) {
          const names = record.map((f) => f.text);
          places = table.names.map((name) => names.indexOf(name)).map((k) => (k < 0 ? undefined : k));
          if (places.every((k) => k === undefined)) throw fail(`its header names none of the ${table.name} columns`);
          continue;
        }
        records++;
        const row: Row = {};
        for (let j = 0; j < table.columns.length; j++) {
          const column = table.columns[j]!;
          const field = places[j] === undefined ? undefined : record[places[j]!];
          let value: RowValue | undefined = null;
          if (field !== undefined && (field.quoted || field.text !== '')) {
            value = column.type.fromCsv(field.text);
            if (value === undefined) {
              const shown = JSON.stringify(field.text.slice(0, 40));
              throw fail(`record ${records} has ${shown} in column ${column.name}, not ${column.type.expected}`);
            }
          }
          row[column.name] = value;
        }
        batch.push(row);
        if (batch.length === BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } catch (cause) {
    if (cause instanceof DiffError) throw cause;
    throw new DiffError({ code: 'DIFF_UNREADABLE', message: `diff: cannot read ${path}: ${String(cause)}`, cause });
  } finally {
    stream.destroy();
  }
}

/** The records of CSV text given in chunks, a chunk's complete records at a time. */
async function* parseCsv(chunks: AsyncIterable<string>): AsyncGenerator<Field[][]> {
  let record: Field[] = [];
  let text = '';
  let quoted = false;
  let inQuotes = false;
  let quoteSeen = false; // a quote ended the quoted part, unless the next character is a quote too
  let started = false; // the current record has a character
  const special = /[,\n"]/g;
  for await (const chunk of chunks) {
    const records: Field[][] = [];
    let i = 0;
    while (i < chunk.length) {
      if (quoteSeen) {
        quoteSeen = false;
        if (chunk.charCodeAt(i) === 0x22) {
          text += '"';
          inQuotes = true;
          i++;
          continue;
        }
      }
      if (inQuotes) {
        const end = chunk.indexOf('"', i);
        if (end < 0) {
          text += chunk.slice(i);
          break;
        }
        text += chunk.slice(i, end);
        [inQuotes, quoteSeen, i] = [false, true, end + 1];
        continue;
      }
      special.lastIndex = i;
      const found = special.exec(chunk);
      if (found === null) {
        text += chunk.slice(i);
        started = true;
        break;
      }
      text += chunk.slice(i, found.index);
      i = found.index + 1;
      started = true;
      if (found[0] === '"') [inQuotes, quoted] = [true, true];
      else {
        record.push({ text, quoted });
        [text, quoted] = ['', false];
        if (found[0] === '\n') {
          records.push(record);
          [record, started] = [[], false];
        }
      }
    }
    if (records.length > 0) yield records;
  }
  if (started || record.length > 0) {
    record.push({ text, quoted });
    yield [record];
  }
}
