/**
 * float64: a finite JSON number, held as a number bit for bit (-0 stays -0); Arrow Float64.
 */
import type { Float64 } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { fillFixedWidth } from '../encoding/fixed-width-column.js';
import { csvNumber } from '../encoding/csv-field.js';

const holds = (v: unknown): v is number => typeof v === 'number';

/** A column of numbers. */
export const float64: ColumnType = {
  kind: 'float64',
  accepts: (v) => Number.isFinite(v), // JSON's 1e400 parses to Infinity
  zod: (z) => z.number(),
  normalise: (v) => v as number,
  holds,
  expected: 'a number',
  arrowType: (arrow) => new arrow.Float64(),
  arrowEncoder: (arrow, type) => (column) => {
    const data = new Float64Array(column.values.length);
    const nulls = fillFixedWidth(float64, column, (i, v) => (data[i] = v as number));
    return arrow.makeData({ type: type as Float64, length: data.length, ...nulls, data });
  },
  csvField: (v) => csvNumber(v as number),
  fromCsv: (f) => (Number.isNaN(Number(f)) && f !== 'NaN' ? undefined : Number(f)),
  parquetjs: 'DOUBLE',
  dictionary: false,
  readers: { arrow: 'float64', duckdb: 'DOUBLE', pandas: 'Float64' },
};
