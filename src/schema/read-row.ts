/** Reads a row's values in its table's column order, the fast way when the row's keys are in that order. */
import type { Row, RowValue } from './row.js';

/**
 * Copies a row's values, in the order of `names` (its table's column names), into `values` (undefined for a key the
 * row lacks). A row that holds the table's keys in order (every row normalise makes) is read with `for…in`, which V8
 * reads from each property's slot; reading by name in a loop over the columns is a hash lookup per value, far slower
 * (docs/performance.md, "Reading a row"). The rest of any other row is read by name.
 */
export function readRow(row: Row, values: (RowValue | undefined)[], names: readonly string[]): void {
  let j = 0;
  for (const key in row) {
    if (key !== names[j]) break;
    values[j++] = row[key];
  }
  for (; j < names.length; j++) values[j] = row[names[j]!];
}
