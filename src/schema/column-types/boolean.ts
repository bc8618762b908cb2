/**
 * boolean: a JSON boolean; Arrow Bool, values and validity as bitmaps; `true` / `false` in CSV.
 */
import type { Bool } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { fillFixedWidth } from '../encoding/fixed-width-column.js';

const holds = (v: unknown): v is boolean => typeof v === 'boolean';

/** A column of booleans. */
export const boolean: ColumnType = {
  kind: 'boolean',
  accepts: holds,
  zod: (z) => z.boolean(),
  normalise: (v) => v as boolean,
  holds,
  expected: 'a boolean',
  arrowType: (arrow) => new arrow.Bool(),
  arrowEncoder: (arrow, type) => (column) => {
    const data = new Uint8Array((column.values.length + 7) >> 3);
    const nulls = fillFixedWidth(boolean, column, (i, v) => {
      if (v) data[i >> 3]! |= 1 << (i & 7);
    });
    return arrow.makeData({ type: type as Bool, length: column.values.length, ...nulls, data });
  },
  csvField: (v) => (v ? 'true' : 'false'),
  fromCsv: (f) => (f === 'true' ? true : f === 'false' ? false : undefined),
  parquetjs: 'BOOLEAN',
  dictionary: false,
  readers: { arrow: 'bool', duckdb: 'BOOLEAN', pandas: 'boolean' },
};
