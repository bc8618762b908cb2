/**
 * The Arrow schema of an output table: one nullable field per column, of its type's Arrow type.
 */
import * as arrow from 'apache-arrow';
import { IMAGES } from '../../schema/columns.js';
import type { Table } from '../../schema/table.js';

/** The Arrow schema of `table` (default the images): one nullable field per column, in order, and the metadata. */
export function arrowSchema(metadata?: Map<string, string>, table: Table = IMAGES): arrow.Schema<arrow.TypeMap> {
  // A category's dictionary id is its column's position: stable across runs and files.
  const fields = table.columns.map((column, i) => new arrow.Field(column.name, column.type.arrowType(arrow, i), true));
  // TypeMap (not Schema's default of any): each field's type is a DataType, so readers of the fields stay typed.
  return new arrow.Schema<arrow.TypeMap>(fields, metadata);
}
