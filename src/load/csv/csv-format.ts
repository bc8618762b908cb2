/**
 * img-etl's own CSV formatter (the 'builtin' CSV engine): a batch of rows to UTF-8 CSV in one pass, each field written
 * by its column type's `csvField` (csv-field.ts), byte for byte what csv-stringify writes under the options of
 * csv-stringify-format.ts, several times faster (csv-stringify builds and casts a record per row, and re-normalises its
 * options for every empty string). Fields are joined with `,` and records end with LF; null is an empty field.
 */
import { IMAGES } from '../../schema/columns.js';
import { readRow } from '../../schema/read-row.js';
import type { Row, RowValue } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { csvText } from '../../schema/encoding/csv-field.js';
import { invalidValue } from '../../schema/encoding/invalid-value.js';

/** The CSV header record of `table` (default the images): the column names, LF-terminated. */
export function formatCsvHeader(neutraliseFormulas: boolean, table: Table = IMAGES): string {
  return `${table.names.map((name) => csvText(name, neutraliseFormulas)).join(',')}\n`;
}

/**
 * The rows as CSV records, each LF-terminated, in UTF-8; a value its column's type does not hold is a
 * LOAD_INVALID_VALUE error naming `place`. Each record is encoded as soon as it is joined: a batch-sized string
 * would be copied once more to join the records and again to encode them, mostly as UTF-16 (a non-ASCII character in
 * any record makes the whole string two bytes a character).
 */
export function formatCsvRows(
  rows: readonly Row[],
  place: string,
  neutraliseFormulas: boolean,
  table: Table = IMAGES,
): Buffer {
  return formatCsvRecords(rows, place, neutraliseFormulas, table).bytes;
}

/** formatCsvRows, with where each record ends (past its LF) in the bytes. */
export function formatCsvRecords(
  rows: readonly Row[],
  place: string,
  neutraliseFormulas: boolean,
  table: Table = IMAGES,
): { bytes: Buffer; ends: number[] } {
  const ends: number[] = [];
  const { names } = table;
  const types = table.columns.map((c) => c.type);
  const fields = new Array<RowValue | undefined>(names.length); // a row's values, then its fields' text
  let out: Buffer = Buffer.allocUnsafe(Math.max(4096, rows.length * 1024));
  let end = 0;
  for (let i = 0; i < rows.length; i++) {
    readRow(rows[i]!, fields, names);
    for (let j = 0; j < names.length; j++) {
      const v = fields[j];
      const type = types[j]!;
      if (v === null) continue; // join writes null as an empty field
      if (type.holds(v)) fields[j] = type.csvField(v, neutraliseFormulas);
      else throw invalidValue(rows, i, names[j]!, v, type.expected, place);
    }
    const record = fields.join(',');
    const most = 3 * record.length + 1; // UTF-8 takes at most 3 bytes per UTF-16 unit (4 per surrogate pair of 2)
    if (end + most > out.length) out = grow(out, end, most);
    end += out.write(record, end, 'utf8');
    out[end++] = 0x0a; // LF
    ends.push(end);
  }
  return { bytes: out.subarray(0, end), ends };
}

/** A buffer at least twice as large with the first `end` bytes of `out`, and room for `more` bytes after them. */
function grow(out: Buffer, end: number, more: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(2 * out.length, end + more));
  out.copy(larger, 0, 0, end);
  return larger;
}
