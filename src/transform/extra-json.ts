/**
 * The `extra` column: a record's keys that the schema does not know, as one JSON object text. When the record
 * carries the text it was served as (record-text.ts), each member is that text, verbatim: integers past 2^53, 1e400,
 * -0, 1.0, 1E5 and escapes stay as served, where JSON.parse and JSON.stringify would change them.
 */
import { eachMemberFromEnd, memberKey } from '../text/raw-json.js';
import { extraTextOf, recordTextOf } from '../schema/record-text.js';

/**
 * The keys of `record` not in `known` (the table's record keys), as a JSON object text in the order served, or null
 * when there are none (the text attached to the record when its page was searched for them: extra-texts.ts). A key
 * served twice appears once, with the value served last (what JSON.parse keeps), at its last place.
 */
export function extraJson(record: Record<string, unknown>, known: ReadonlySet<string>): string | null {
  let unknown: string[] | undefined;
  for (const key in record) if (!known.has(key)) (unknown ??= []).push(key);
  if (unknown === undefined) return null;
  const served = extraTextOf(record);
  if (served !== undefined) return served;
  const text = recordTextOf(record);
  return text === undefined ? extraJsonOfValues(record, unknown) : extraJsonOfText(text, unknown);
}

/**
 * The members of `text` whose keys are `unknown` (the parsed record's), each as written. Read from the end, so that a
 * repeated key's last value is the one met first, and it stops when every unknown key is found: the service puts
 * them near the end (before `image_type`), so the rest of the record is not read.
 */
function extraJsonOfText(text: string, unknown: readonly string[]): string {
  const escapes = text.includes('\\'); // without a backslash anywhere, a key's text is the key itself in quotes
  const found = new Array<boolean>(unknown.length).fill(false);
  const members: string[] = [];
  let left = unknown.length;
  eachMemberFromEnd(text, (keyStart, keyEnd, valueStart, valueEnd) => {
    const at = unknownIndex(text, keyStart, keyEnd, unknown, escapes);
    if (at !== -1 && !found[at]) {
      found[at] = true;
      members.push(`${text.slice(keyStart, keyEnd)}:${text.slice(valueStart, valueEnd)}`);
      left--;
    }
    return left > 0;
  });
  return `{${members.reverse().join(',')}}`;
}

/** Which unknown key the key literal from `start` to `end` is, or -1; compared in place unless it has escapes. */
function unknownIndex(text: string, start: number, end: number, unknown: readonly string[], escapes: boolean): number {
  if (escapes) return unknown.indexOf(memberKey(text, start, end)); // the key decoded where it has an escape
  const length = end - start - 2;
  for (let j = 0; j < unknown.length; j++) {
    const key = unknown[j]!;
    if (key.length === length && text.startsWith(key, start + 1)) return j;
  }
  return -1;
}

/** The parsed values re-serialised: for a record built in code, or parsed without its text. */
function extraJsonOfValues(record: Record<string, unknown>, unknown: readonly string[]): string {
  const extra: Record<string, unknown> = {};
  // defineProperty: a "__proto__" key stays a key, where an assignment would set the object's prototype.
  for (const key of unknown) {
    Object.defineProperty(extra, key, { value: record[key], enumerable: true, writable: true, configurable: true });
  }
  return JSON.stringify(extra);
}
