/** The load error for a value that does not fit its column, naming where the batch came from. */
import type { BatchColumn, ColumnType } from '../column-type.js';
import type { Row, RowValue } from '../row.js';
import { LoadError } from '../../text/load-error.js';

/** Where a batch comes from, for error messages (the page URL). */
export type BatchPlace = string;

/** The error for a value that does not fit its column. */
export function invalidValue(
  rows: readonly Row[],
  i: number,
  name: string,
  v: RowValue | undefined,
  expected: string,
  place: BatchPlace,
): LoadError {
  const shown =
    v === undefined
      ? 'nothing (the key is missing)'
      : `${typeof v === 'bigint' ? `${v}n` : JSON.stringify(v)} (${typeof v})`;
  const id = rows[i]?.['id'];
  return LoadError.of(
    'LOAD_INVALID_VALUE',
    `load: row ${i}${typeof id === 'number' ? ` (id ${id})` : ''} of ${place}: column "${name}" ` +
      `holds ${shown}, expected ${expected}`,
  );
}

/** The error for the value of row `i` of a batch's column that its type does not hold. */
export function refusedValue(column: BatchColumn, i: number, type: ColumnType): LoadError {
  return invalidValue(column.rows, i, column.name, column.values[i], type.expected, column.place);
}
