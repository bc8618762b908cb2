/**
 * An edit of a listed record, as its owner saving it in NeuroVault: `modify_date` is auto_now, and one served field
 * (the name) changes. Kept as a small override applied to the record's JSON text as rendered, so generated and given
 * records edit alike and every other byte stays as it was.
 */
import { formatBerlinTimestamp } from '../../text/berlin-time.js';
import { objectMembers } from '../../text/raw-json.js';

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
  const member = objectMembers(json).find((m) => m.key === key);
  if (member === undefined) return json;
  const { valueStart: start, valueEnd: end } = member;
  return json.slice(0, start) + change(json.slice(start, end)) + json.slice(end);
}
