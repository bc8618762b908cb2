/**
 * The `extra` column: a record's keys that the schema does not know, as one JSON object text. When the record
 * carries the text it was served as (record-text.ts), each member is that text, verbatim: integers past 2^53, 1e400,
 * -0, 1.0, 1E5 and escapes stay as served, where JSON.parse and JSON.stringify would change them.
 */
import { objectMembers } from '../extract/raw-json.js';
import { KNOWN_KEYS } from '../schema/columns.js';
import { recordTextOf } from '../schema/record-text.js';

/**
 * The keys of `record` the schema does not know, as a JSON object text in the order served, or null when there are
 * none. A key served twice appears once, at its first place, with the value served last (what JSON.parse keeps).
 */
export function extraJson(record: Record<string, unknown>): string | null {
  const text = recordTextOf(record);
  return text === undefined ? extraJsonOfValues(record) : extraJsonOfText(text);
}

function extraJsonOfText(text: string): string | null {
  const keys: string[] = [];
  const keyTexts: string[] = [];
  const valueTexts: string[] = [];
  for (const member of objectMembers(text)) {
    if (KNOWN_KEYS.has(member.key)) continue;
    const value = text.slice(member.valueStart, member.valueEnd);
    const at = keys.indexOf(member.key);
    if (at !== -1) {
      valueTexts[at] = value;
      continue;
    }
    keys.push(member.key);
    keyTexts.push(text.slice(member.keyStart, member.keyEnd));
    valueTexts.push(value);
  }
  if (keys.length === 0) return null;
  let json = '{';
  for (let i = 0; i < keys.length; i++) json += `${i === 0 ? '' : ','}${keyTexts[i]}:${valueTexts[i]}`;
  return `${json}}`;
}

/** The parsed values re-serialised: for a record built in code, or parsed without its text. */
function extraJsonOfValues(record: Record<string, unknown>): string | null {
  let extra: Record<string, unknown> | undefined;
  for (const key in record) {
    if (KNOWN_KEYS.has(key)) continue;
    // defineProperty: a "__proto__" key stays a key, where an assignment would set the object's prototype.
    Object.defineProperty((extra ??= {}), key, { value: record[key], enumerable: true, writable: true, configurable: true });
  }
  return extra === undefined ? null : JSON.stringify(extra);
}
