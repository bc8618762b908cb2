/**
 * timestamp: ISO 8601 text with a UTC offset as served, held as bigint microseconds since the epoch in UTC (Date
 * keeps milliseconds only); Arrow Timestamp(µs, UTC); ISO 8601 UTC with microseconds in CSV.
 */
import type { TimestampMicrosecond } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { fillFixedWidth } from '../encoding/fixed-width-column.js';
import { formatTimestampMicros, parseFormattedTimestampMicros, parseTimestampMicros } from '../timestamp.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const holds = (v: unknown): v is bigint => typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX;
const accepts = (v: unknown): boolean => typeof v === 'string' && parseTimestampMicros(v) !== undefined;

/** A column of instants, kept to the microsecond. */
export const timestamp: ColumnType = {
  kind: 'timestamp',
  accepts,
  zod: (z) => z.string().refine(accepts, { message: 'expected an ISO 8601 timestamp with a UTC offset' }),
  normalise: (v) => (typeof v === 'string' ? (parseTimestampMicros(v) ?? null) : (v as bigint)),
  holds,
  expected: 'bigint microseconds within int64',
  arrowType: (arrow) => new arrow.TimestampMicrosecond('UTC'),
  arrowEncoder: (arrow, type) => (column) => {
    const data = new BigInt64Array(column.values.length);
    const nulls = fillFixedWidth(timestamp, column, (i, v) => (data[i] = v as bigint));
    return arrow.makeData({ type: type as TimestampMicrosecond, length: data.length, ...nulls, data });
  },
  csvField: (v) => formatTimestampMicros(v as bigint), // digits, signs, `-:.TZ`: never quoted, never neutralised
  fromCsv: (f) => parseFormattedTimestampMicros(f), // the extended-year form csvField writes near the limits too
  parquetjs: 'TIMESTAMP_MICROS',
  dictionary: false,
  readers: { arrow: 'timestamp[us, tz=UTC]', duckdb: 'TIMESTAMP WITH TIME ZONE', pandas: 'datetime64[us, UTC]' },
};
