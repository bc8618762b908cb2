/** Fills an Arrow fixed-width column (numbers, booleans, timestamps) from a batch's values, counting its nulls. */
import type { BatchColumn, ColumnType } from '../column-type.js';
import type { RowValue } from '../row.js';
import { refusedValue } from './invalid-value.js';

/** A fixed-width column's nulls, as Arrow's makeData takes them. */
export interface Nulls {
  /** How many values are null. */
  nullCount: number;
  /** One bit per value, set where it is not null; undefined when none is null. */
  nullBitmap: Uint8Array | undefined;
}

/**
 * Walks the values of a fixed-width column (numbers, booleans, timestamps): `put(i, v)` writes each value its type
 * holds into the column's buffer; a null is counted; any other value is a LOAD_INVALID_VALUE error.
 */
export function fillFixedWidth(type: ColumnType, column: BatchColumn, put: (i: number, v: RowValue) => void): Nulls {
  const { values } = column;
  const validity = new Uint8Array((values.length + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) nulls++;
    else if (type.holds(v)) {
      put(i, v);
      validity[i >> 3]! |= 1 << (i & 7);
    } else throw refusedValue(column, i, type);
  }
  return { nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined };
}
