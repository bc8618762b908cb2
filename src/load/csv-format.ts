/**
 * img-etl's own CSV formatter (the 'builtin' CSV engine): a batch of rows to UTF-8 CSV in one pass, byte for byte what
 * csv-stringify writes under the options of csv-stringify-format.ts, several times faster (csv-stringify builds and
 * casts a record per row, and re-normalises its options for every empty string).
 *
 * The rules it reproduces: fields are joined with `,` and records end with LF; null is an empty field and `""` is the
 * empty string; a field holding `,`, `"`, CR or LF is quoted with its quotes doubled (nothing else is: not leading or
 * trailing spaces, not tabs); booleans are `true`/`false`, numbers `String(n)` with `-0` for negative zero, timestamps
 * ISO 8601 UTC with microseconds (`+010000-01-01T13:59:59.999999Z` outside years 0000-9999). With formula
 * neutralisation on, a text field starting with `=`, `+`, `-`, `@`, tab, CR or a full-width `＝＋－＠` gets a `'` in
 * front, before quoting; numbers, booleans and timestamps never do (a timestamp is not a formula, even with a sign).
 */
import { COLUMNS } from '../schema/columns.js';
import type { Row, RowValue } from '../schema/row.js';
import { formatTimestampMicros } from '../schema/timestamp.js';
import { invalidValue } from './invalid-value.js';

/** Copies a row's values, in COLUMNS order, into `values`. */
type ReadRow = (row: Row, values: (RowValue | undefined)[]) => void;

const NAMES = COLUMNS.map((c) => c.name);
const COUNT = NAMES.length;
// Column kinds as small integers for the switch; category and json are text like string.
const INT64 = 0, FLOAT64 = 1, BOOLEAN = 2, TIMESTAMP = 3, TEXT = 4;
const KINDS = COLUMNS.map((c) => (c.kind === 'int64' ? INT64 : c.kind === 'float64' ? FLOAT64 : c.kind === 'boolean' ? BOOLEAN : c.kind === 'timestamp' ? TIMESTAMP : TEXT));

/** Characters that make csv-stringify quote a field under these options: the delimiter, the quote, CR and LF. */
const NEEDS_QUOTES = /[,"\r\n]/;
const QUOTES = /"/g;

/** The CSV header record: the column names, LF-terminated. */
export function formatCsvHeader(neutraliseFormulas: boolean): string {
  return `${NAMES.map((name) => textField(name, neutraliseFormulas)).join(',')}\n`;
}

/**
 * The rows as CSV records, each LF-terminated, in UTF-8; a value that does not fit its column's kind is a
 * LOAD_INVALID_VALUE error naming `place`. Each record is encoded as soon as it is joined: a batch-sized string
 * would be copied once more to join the records and again to encode them, mostly as UTF-16 (a non-ASCII character in
 * any record makes the whole string two bytes a character).
 */
export function formatCsvRows(rows: readonly Row[], place: string, neutraliseFormulas: boolean): Buffer {
  const fields = new Array<RowValue | undefined>(COUNT); // a row's values, then its fields' text
  let out: Buffer = Buffer.allocUnsafe(Math.max(4096, rows.length * 1024));
  let end = 0;
  for (let i = 0; i < rows.length; i++) {
    READ_ROW(rows[i]!, fields);
    for (let j = 0; j < COUNT; j++) {
      const v = fields[j];
      if (v === null) continue; // join writes null as an empty field
      switch (KINDS[j]) {
        case INT64:
          if (!Number.isSafeInteger(v)) throw invalidValue(rows, i, NAMES[j]!, v, 'a safe integer', place);
          fields[j] = numberText(v as number);
          break;
        case FLOAT64:
          if (typeof v !== 'number') throw invalidValue(rows, i, NAMES[j]!, v, 'a number', place);
          fields[j] = numberText(v);
          break;
        case BOOLEAN:
          if (typeof v !== 'boolean') throw invalidValue(rows, i, NAMES[j]!, v, 'a boolean', place);
          fields[j] = v ? 'true' : 'false';
          break;
        case TIMESTAMP:
          if (typeof v !== 'bigint') throw invalidValue(rows, i, NAMES[j]!, v, 'bigint microseconds', place);
          fields[j] = formatTimestampMicros(v); // digits, signs, `-:.TZ`: never quoted, never neutralised
          break;
        default:
          if (typeof v !== 'string') throw invalidValue(rows, i, NAMES[j]!, v, 'a string', place);
          fields[j] = textField(v, neutraliseFormulas);
      }
    }
    const record = fields.join(',');
    const most = 3 * record.length + 1; // UTF-8 takes at most 3 bytes per UTF-16 unit (4 per surrogate pair of 2)
    if (end + most > out.length) out = grow(out, end, most);
    end += out.write(record, end, 'utf8');
    out[end++] = 0x0a; // LF
  }
  return out.subarray(0, end);
}

/** A buffer at least twice as large with the first `end` bytes of `out`, and room for `more` bytes after them. */
function grow(out: Buffer, end: number, more: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(2 * out.length, end + more));
  out.copy(larger, 0, 0, end);
  return larger;
}

/**
 * Reads a row's columns by name in straight-line code generated once from COLUMNS (as normalise.ts generates its
 * normaliser): each read is then a fast property access on the rows' one shape, where `row[name]` in a loop is a
 * keyed lookup that costs more than formatting the value.
 */
const READ_ROW: ReadRow = (() => {
  const reads = NAMES.map((name, j) => `v[${j}] = r[${JSON.stringify(name)}];`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from COLUMNS only, once, at load
  return new Function('r', 'v', reads.join('\n')) as ReadRow;
})();

/** `String(n)`, but `-0` for negative zero (as the csv-stringify engine's cast). */
function numberText(n: number): string {
  return n === 0 && 1 / n < 0 ? '-0' : String(n);
}

/** One text field: `""` when empty, `'` in front of a formula start, quoted (quotes doubled) when it holds `,` `"` CR or LF. */
function textField(s: string, neutraliseFormulas: boolean): string {
  if (s === '') return '""';
  const field = neutraliseFormulas && startsLikeFormula(s.charCodeAt(0)) ? `'${s}` : s;
  if (!NEEDS_QUOTES.test(s)) return field;
  return `"${s.includes('"') ? field.replace(QUOTES, '""') : field}"`;
}

/** `=` `+` `-` `@` tab CR and the full-width `＝＋－＠`: csv-stringify 6's `escape_formulas` list. */
function startsLikeFormula(c: number): boolean {
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 || c === 0xff1d || c === 0xff0b || c === 0xff0d || c === 0xff20;
}
