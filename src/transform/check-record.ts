/**
 * A fast structural check of a raw record, derived from COLUMNS. It agrees with ImageSchema (a property
 * test holds them together) and exists because zod costs ~6 µs a record; zod still explains every failure.
 */
import { KNOWN_KEYS, RECORD_COLUMNS, type ColumnKind } from '../schema/columns.js';
import { isShallowJson } from '../schema/json-depth.js';
import { parseTimestampMicros } from '../schema/timestamp.js';

const CHECK_BY_KIND: Record<ColumnKind, (v: unknown) => boolean> = {
  int64: (v) => Number.isSafeInteger(v),
  float64: (v) => Number.isFinite(v), // JSON's 1e400 parses to Infinity
  boolean: (v) => typeof v === 'boolean',
  timestamp: (v) => typeof v === 'string' && parseTimestampMicros(v) !== undefined,
  string: (v) => typeof v === 'string' && v.isWellFormed(),
  category: (v) => typeof v === 'string' && v.isWellFormed(),
  json: () => true,
};

/** What the check found: a record that breaks the schema, a valid one, or a valid one with keys the schema lacks. */
export type RecordCheck = 'invalid' | 'valid' | 'valid-with-extra';

/** True when the raw record is an object with a non-negative safe-integer `id` and every known key null, absent or of its column's type. */
export function isValidRecord(raw: unknown): raw is Record<string, unknown> {
  return checkRecord(raw) !== 'invalid';
}

/** Checks a raw record as isValidRecord does, and says whether a valid one has keys the schema lacks (its `extra`). */
export function checkRecord(raw: unknown): RecordCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'invalid';
  const record = raw as Record<string, unknown>;
  const id = record['id'];
  if (!Number.isSafeInteger(id) || (id as number) < 0) return 'invalid';
  const known = CHECK_KNOWN_KEYS(record, CHECK_BY_KIND);
  if (known < 0) return 'invalid';
  let keys = 0;
  for (const _ in record) keys++;
  if (keys === known) return 'valid';
  for (const key in record) if (!KNOWN_KEYS.has(key) && !isShallowJson(record[key])) return 'invalid';
  return 'valid-with-extra';
}

/**
 * Checks every known key of a record, generated once from RECORD_COLUMNS as straight-line code that reads each key
 * by name (a generic loop over the columns costs twice as much); returns how many known keys the record holds, or
 * -1 when one holds a value of the wrong type. Unknown keys are then found by comparing that with the key count.
 */
const CHECK_KNOWN_KEYS: (record: Record<string, unknown>, checks: typeof CHECK_BY_KIND) => number = (() => {
  const lines = ['let known = 0, v;'];
  for (const column of RECORD_COLUMNS) {
    lines.push(`v = r[${JSON.stringify(column.name)}];`, `if (v !== undefined) { known++; if (v !== null && !k.${column.kind}(v)) return -1; }`);
  }
  lines.push('return known;');
  // Generated from COLUMNS only, once, at load.
  return new Function('r', 'k', lines.join('\n')) as (record: Record<string, unknown>, checks: typeof CHECK_BY_KIND) => number;
})();
