/**
 * boolean: a JSON boolean; Arrow Bool, values and validity as bitmaps; `true` / `false` in CSV.
 */
import type { Bool } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { invalidValue } from '../../load/invalid-value.js';

const holds = (v: unknown): v is boolean => typeof v === 'boolean';
const expected = 'a boolean';

/** A column of booleans. */
export const boolean: ColumnType = {
  kind: 'boolean',
  accepts: holds,
  zod: (z) => z.boolean(),
  normalise: (v) => v as boolean,
  holds,
  expected,
  arrowType: (arrow) => new arrow.Bool(),
  arrowEncoder: (arrow, name, type) => (values, rows, place) => {
    const n = values.length;
    const data = new Uint8Array((n + 7) >> 3);
    const validity = new Uint8Array((n + 7) >> 3);
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null) {
        nulls++;
        continue;
      }
      if (!holds(v)) throw invalidValue(rows, i, name, v, expected, place);
      if (v) data[i >> 3]! |= 1 << (i & 7);
      validity[i >> 3]! |= 1 << (i & 7);
    }
    return arrow.makeData({ type: type as Bool, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data });
  },
  csvField: (v) => (v ? 'true' : 'false'),
  parquetjs: 'BOOLEAN',
  dictionary: false,
  readers: { arrow: 'bool', duckdb: 'BOOLEAN', pandas: 'boolean' },
};
