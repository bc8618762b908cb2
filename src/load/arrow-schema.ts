/**
 * The Arrow schema of the output table: one nullable field per column of COLUMNS, of its type's Arrow type.
 */
import * as arrow from 'apache-arrow';
import { COLUMNS } from '../schema/columns.js';

/**
 * The Arrow schema of the output: one nullable field per column of COLUMNS, in order, with optional schema metadata.
 */
export function arrowSchema(metadata?: Map<string, string>): arrow.Schema<arrow.TypeMap> {
  // A category's dictionary id is its column's position: stable across runs and files.
  const fields = COLUMNS.map((column, i) => new arrow.Field(column.name, column.type.arrowType(arrow, i), true));
  return new arrow.Schema(fields, metadata);
}
