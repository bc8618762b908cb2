/**
 * int64: a JSON integer within ±(2^53 - 1) (or a derived column's BigInt within them), held as a number; Arrow Int64,
 * written as two 32-bit words per value (faster than BigInt()). The `id` column takes the non-negative variant.
 */
import type { Int64 } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { fillFixedWidth } from '../encoding/fixed-width-column.js';
import { csvNumber } from '../encoding/csv-field.js';

const TWO_32 = 4294967296;

/** A column of integers. */
export const int64: ColumnType = int64Type(false);

/** A column of integers that are never negative: record ids. */
export const nonNegativeInt64: ColumnType = int64Type(true);

function int64Type(nonNegative: boolean): ColumnType {
  const holds = (v: unknown): v is number => Number.isSafeInteger(v);
  const self: ColumnType = {
    kind: 'int64',
    accepts: (v) => holds(v) && (!nonNegative || v >= 0),
    zod: (z) => {
      const safe = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
      return nonNegative ? safe.min(0) : safe;
    },
    // JSON's -0 parses to negative zero, which an int64 column cannot hold (Arrow and Parquet write 0): the row holds 0
    // too, so that CSV (written from the rows, or from the staged Arrow columns) and every other reader of rows agree.
    normalise: (v) => (v as number) + 0,
    holds,
    expected: 'a safe integer',
    // A row's timestamps are BigInts, so arithmetic on them gives one: within the safe integers it is the same integer.
    // (A BigInt beyond them is beyond them as a number too, never rounded into them.)
    fromDerived: (v) => (typeof v === 'bigint' && holds(Number(v)) ? Number(v) : v),
    arrowType: (arrow) => new arrow.Int64(),
    arrowEncoder: (arrow, type) => (column) => {
      const data = new BigInt64Array(column.values.length);
      const words = new Int32Array(data.buffer); // little-endian, like Arrow itself
      const nulls = fillFixedWidth(self, column, (i, v) => {
        const high = Math.floor((v as number) / TWO_32);
        words[2 * i] = (v as number) - high * TWO_32;
        words[2 * i + 1] = high;
      });
      return arrow.makeData({ type: type as Int64, length: data.length, ...nulls, data });
    },
    csvField: (v) => csvNumber(v as number),
    fromCsv: (f) => (/^-?\d+$/.test(f) && holds(Number(f)) ? Number(f) : undefined),
    parquetjs: 'INT64',
    dictionary: false,
    readers: { arrow: 'int64', duckdb: 'BIGINT', pandas: 'Int64' },
  };
  return self;
}
