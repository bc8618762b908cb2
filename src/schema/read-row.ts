import { COLUMNS } from './columns.js';
import type { Row, RowValue } from './row.js';

const NAMES = COLUMNS.map((c) => c.name);

/**
 * Copies a row's values, in COLUMNS order, into `values` (undefined for a key the row lacks). A row that holds COLUMNS'
 * keys in order (every row normalise makes) is read with `for…in`, which V8 reads from each property's slot; reading
 * by name in a loop over the columns is a hash lookup per value, seven times slower. The rest of any other row is read
 * by name.
 */
export function readRow(row: Row, values: (RowValue | undefined)[]): void {
  let j = 0;
  for (const key in row) {
    if (key !== NAMES[j]) break;
    values[j++] = row[key];
  }
  for (; j < NAMES.length; j++) values[j] = row[NAMES[j]!];
}
