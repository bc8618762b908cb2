/** A column a pipeline adds to a table, computed for each row from what the row already holds. */
import type { Column, ColumnType } from './column-type.js';
import type { Row, RowValue } from './row.js';

/**
 * A derived column `name` of `type` (one of the column types, e.g. `int64`), described by `doc`, whose value is
 * `value(row, record)`: `row` holds the row's record columns normalised (timestamps as UTC microseconds, sentinels as
 * null) and the derived columns before it; `record` is the record as served. Give it to `withColumns` or a pipeline's
 * `columns`; a value that does not fit `type` fails the run with the column's name.
 */
export function derivedColumn(
  name: string,
  type: ColumnType,
  doc: string,
  value: (row: Readonly<Row>, record: Readonly<Record<string, unknown>>) => RowValue,
): Column {
  return {
    name,
    type,
    origin: 'derived',
    doc,
    dictionary: type.dictionary,
    // the source text of `value`: what a library pipeline's identity digests, not this wrapper's
    derive: Object.assign((record: Readonly<Record<string, unknown>>, row: Readonly<Row>) => value(row, record), {
      toString: () => String(value),
    }),
  };
}
