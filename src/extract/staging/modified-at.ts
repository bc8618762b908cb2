/** Orders copies of one record by their `modify_date`, so that the newest copy wins. */
import { parseTimestampMicros } from '../../schema/timestamp.js';

/** A record's `modify_date` in microseconds, for ordering copies of it; a copy without a readable one is the oldest. */
export function modifiedAt(record: unknown): number {
  const text = (record as { modify_date?: unknown } | null)?.modify_date;
  const micros = typeof text === 'string' ? parseTimestampMicros(text) : undefined;
  return micros === undefined ? -Infinity : Number(micros);
}
