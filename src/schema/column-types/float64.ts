/**
 * float64: a finite JSON number, held as a number bit for bit (-0 stays -0); Arrow Float64.
 */
import type { Float64 } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { invalidValue } from '../../load/invalid-value.js';
import { csvNumber } from '../../load/csv-field.js';

const holds = (v: unknown): v is number => typeof v === 'number';
const expected = 'a number';

/** A column of numbers. */
export const float64: ColumnType = {
  kind: 'float64',
  accepts: (v) => Number.isFinite(v), // JSON's 1e400 parses to Infinity
  zod: (z) => z.number(),
  normalise: (v) => v as number,
  holds,
  expected,
  arrowType: (arrow) => new arrow.Float64(),
  arrowEncoder: (arrow, name, type) => (values, rows, place) => {
    const n = values.length;
    const data = new Float64Array(n);
    const validity = new Uint8Array((n + 7) >> 3);
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null) {
        nulls++;
        continue;
      }
      if (!holds(v)) throw invalidValue(rows, i, name, v, expected, place);
      data[i] = v;
      validity[i >> 3]! |= 1 << (i & 7);
    }
    return arrow.makeData({ type: type as Float64, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data });
  },
  csvField: (v) => csvNumber(v as number),
  parquetjs: 'DOUBLE',
  dictionary: false,
  readers: { arrow: 'float64', duckdb: 'DOUBLE', pandas: 'Float64' },
};
