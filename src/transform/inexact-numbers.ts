/**
 * Numbers of a record's int64 and float64 columns whose value as parsed is not the one their text says: JSON.parse
 * rounds `9007199254740990.5` and `1.00000000000000001` to integers and turns `1e-400` into 0, which an int64 column
 * would take as they came out (a float64 column rounds any decimal text to the nearest float64, by its nature, but
 * 0 for a number that is not zero is as far from it as `1e400`'s Infinity). The check reads the record's text as
 * served; a page is searched for what could be such a number first, so that a page without one costs one scan.
 */
import type { RecordIssue } from '../schema/record-issue.js';
import { RecordTexts } from '../schema/record-texts.js';
import type { Table } from '../schema/table.js';
import { bufferView } from '../text/buffer-view.js';
import { hasEscapedKey, regExpLiteral } from '../text/key-literals.js';
import { latin1Text } from '../text/latin1-text.js';
import { objectMembers } from '../text/raw-json.js';

/** A JSON number's text: sign, integer digits, fraction digits, exponent. */
const NUMBER = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Per table: a key of an int64 column before a number with a fraction or exponent, or a negative exponent. */
const patterns = new WeakMap<Table, RegExp>();

/**
 * A point and 200 zeros. A number that is not zero parses to 0 below 2.5e-324: its text has a negative exponent of
 * three digits, or one of two digits (-99 at least) and 224 zeros or more after its point. Searched as a plain string:
 * in the pattern, a run of zeros is tried at every point of the page, which costs more than the rest of it.
 */
const ZEROS = '.' + '0'.repeat(200);

/**
 * Whether a page (its bytes, and its text or its bytes read as Latin-1) may hold an inexact number of `table`: an
 * int64 column's key before a number with a fraction or exponent, a negative exponent of three digits or more, a run
 * of 200 zeros after a point, or a key written with an escape (which the search cannot see). False: it holds none.
 */
export function mayHoldInexactNumbers(bytes: Buffer, text: string, table: Table): boolean {
  let pattern = patterns.get(table);
  if (pattern === undefined) {
    const names = table.recordColumns.filter((c) => c.type.kind === 'int64').map((c) => regExpLiteral(c.name));
    const int64 = names.length > 0 ? `"(?:${names.join('|')})"\\s*:\\s*-?\\d+[.eE]|` : '';
    pattern = new RegExp(`${int64}[eE]-\\d{3}`);
    patterns.set(table, pattern);
  }
  return pattern.test(text) || text.includes(ZEROS) || hasEscapedKey(bytes);
}

/**
 * The issues of the int64 and float64 members of a record's JSON text whose text the parsed value does not say
 * exactly; empty when there are none. A member given twice is checked at each place (JSON.parse keeps the last).
 */
export function inexactNumberIssues(recordText: string, table: Table): RecordIssue[] {
  const issues: RecordIssue[] = [];
  for (const member of objectMembers(recordText)) {
    const kind = table.recordColumnByName.get(member.key)?.type.kind;
    if (kind !== 'int64' && kind !== 'float64') continue;
    const text = recordText.slice(member.valueStart, member.valueEnd);
    const parts = NUMBER.exec(text);
    if (parts === null) continue; // not a number: the type's check refuses it
    const [, whole, fraction = '', exponent = '0'] = parts as unknown as [string, string, string?, string?];
    const digits = whole + fraction;
    if (kind === 'int64' && !isInteger(digits, whole.length + Number(exponent))) {
      issues.push({ path: [member.key], message: `expected an integer: ${text} was served, which is not one` });
    } else if (kind === 'float64' && Number(text) === 0 && /[1-9]/.test(digits)) {
      issues.push({ path: [member.key], message: `expected a number float64 holds: ${text} is too small, not 0` });
    }
  }
  return issues;
}

/** Whether the decimal digits with the point after `point` of them name an integer: no digit after it but 0. */
function isInteger(digits: string, point: number): boolean {
  return !/[1-9]/.test(digits.slice(Math.max(0, point)));
}

/**
 * The positions of a page's records (`count` of them) that have an inexact number of `table`, found in the page's body
 * as served (`text`: the body as Latin-1 text, when it was made already); none when there is no body, or one that does
 * not hold `count` records.
 */
export function inexactRecordPositions(
  body: Uint8Array | undefined,
  count: number,
  table: Table,
  text?: string,
): Set<number> {
  const positions = new Set<number>();
  if (body === undefined) return positions;
  const bytes = bufferView(body);
  const latin1 = text ?? latin1Text(bytes);
  if (!mayHoldInexactNumbers(bytes, latin1, table)) return positions;
  const texts = new RecordTexts(bytes, latin1);
  if (texts.length !== count) return positions;
  for (let position = 0; position < count; position++)
    if (inexactNumberIssues(texts.at(position), table).length > 0) positions.add(position);
  return positions;
}
