/**
 * The fast structural check of a raw record of a table: the type of the column each key names accepts its value
 * (`extra`'s type any other key's). It agrees with the table's zod schema (a property test holds them together) and
 * exists because zod is slow on every record (docs/performance.md, "Checking records"); zod still explains every
 * failure.
 */
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';

/** What the check found: a record that breaks the schema, a valid one, or a valid one with keys the schema lacks. */
export type RecordCheck = 'invalid' | 'valid' | 'valid-with-extra';

/**
 * True when the raw record is an object with a non-negative safe-integer `id` and every known key null, absent or of
 * its column's type.
 */
export function isValidRecord(raw: unknown, table: Table = IMAGES): raw is Record<string, unknown> {
  return checkRecord(raw, table) !== 'invalid';
}

/**
 * Checks a raw record as isValidRecord does, and says whether a valid one has keys the schema lacks (its `extra`).
 * It goes through the record's own keys (`for…in` reads each value from its slot, where reading each column's key by
 * name would be a hash lookup per column) and counts the required columns it finds with a value.
 */
export function checkRecord(raw: unknown, table: Table = IMAGES): RecordCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'invalid';
  const record = raw as Record<string, unknown>;
  const { recordColumnByName, extraColumn } = table;
  let required = 0;
  let extra = false;
  for (const key in record) {
    const v = record[key];
    const column = recordColumnByName.get(key);
    if (column === undefined) {
      // the key is in `extra`'s JSON text too: a JSON string its type must accept (no lone surrogate)
      if (!extraColumn.type.accepts(v) || !extraColumn.type.accepts(key)) return 'invalid';
      extra = true;
    } else if (v !== null && v !== undefined) {
      if (!column.type.accepts(v)) return 'invalid';
      if (column.required) required++;
    }
  }
  if (required < table.requiredCount) return 'invalid';
  return extra ? 'valid-with-extra' : 'valid';
}
