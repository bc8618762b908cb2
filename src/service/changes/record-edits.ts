/**
 * An edit of a listed record, as its owner saving it in NeuroVault: `modify_date` is auto_now, and one served field
 * (the name) changes. Kept as a small override applied to the record's JSON text as rendered, so generated and given
 * records edit alike and every other byte stays as it was.
 */
import { formatBerlinTimestamp } from '../../text/berlin-time.js';

/** What an edit changes in a record. */
export interface RecordEdit {
  /** The new `modify_date` (UTC microseconds). */
  modified: number;
  /** Text appended to the record's `name` (a null name becomes the suffix, trimmed). */
  suffix: string;
}

/** The record's JSON text with the edit applied to its top-level `modify_date` and `name`. */
export function editRecordJson(json: string, edit: RecordEdit): string {
  const stamped = replaceValue(json, 'modify_date', () => JSON.stringify(formatBerlinTimestamp(edit.modified)));
  return replaceValue(stamped, 'name', (value) =>
    value.startsWith('"')
      ? `${value.slice(0, -1)}${JSON.stringify(edit.suffix).slice(1)}`
      : JSON.stringify(edit.suffix.trim()),
  );
}

/** `json` with the value of its top-level `key` replaced by `change(value text)`; unchanged when it has no such key. */
function replaceValue(json: string, key: string, change: (value: string) => string): string {
  const span = topLevelValue(json, key);
  if (span === undefined) return json;
  return json.slice(0, span.start) + change(json.slice(span.start, span.end)) + json.slice(span.end);
}

/** Where the value of the top-level `key` of a JSON object's text starts and ends. */
function topLevelValue(json: string, key: string): { start: number; end: number } | undefined {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const char = json[i];
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
    else if (char === '"') {
      const end = stringEnd(json, i);
      const colon = skipSpace(json, end);
      if (depth === 1 && json[colon] === ':' && JSON.parse(json.slice(i, end)) === key) {
        const start = skipSpace(json, colon + 1);
        return { start, end: valueEnd(json, start) };
      }
      i = end - 1;
    }
  }
  return undefined;
}

/** The index just past the JSON string starting at `start` (a quote). */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && json[i] !== '"') i += json[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The index just past the JSON value starting at `start`. */
function valueEnd(json: string, start: number): number {
  let depth = 0;
  for (let i = start; i < json.length; i++) {
    const char = json[i] as string;
    if (char === '"') {
      const end = stringEnd(json, i);
      if (depth === 0) return end;
      i = end - 1;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      if (depth === 0) return trimEnd(json, start, i);
      if (--depth === 0) return i + 1;
    } else if (char === ',' && depth === 0) return trimEnd(json, start, i);
  }
  return trimEnd(json, start, json.length);
}

function trimEnd(json: string, start: number, end: number): number {
  while (end > start && /\s/.test(json[end - 1] as string)) end--;
  return end;
}

function skipSpace(json: string, i: number): number {
  while (i < json.length && /\s/.test(json[i] as string)) i++;
  return i;
}
