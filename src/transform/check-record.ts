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

const CHECKS = RECORD_COLUMNS.map((c) => [c.name, CHECK_BY_KIND[c.kind]] as const);

/** True when the raw record is an object with a non-negative safe-integer `id` and every known key null, absent or of its column's type. */
export function isValidRecord(raw: unknown): raw is Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const record = raw as Record<string, unknown>;
  const id = record['id'];
  if (!Number.isSafeInteger(id) || (id as number) < 0) return false;
  for (const [name, check] of CHECKS) {
    const value = record[name];
    if (value !== null && value !== undefined && !check(value)) return false;
  }
  for (const key in record) if (!KNOWN_KEYS.has(key) && !isShallowJson(record[key])) return false;
  return true;
}
