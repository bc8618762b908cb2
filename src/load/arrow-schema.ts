/**
 * The Arrow schema of the output table, derived from COLUMNS.
 */
import { Bool, Dictionary, Field, Float64, Int32, Int64, Schema, TimestampMicrosecond, Utf8, type DataType } from 'apache-arrow';
import { COLUMNS, type Column } from '../schema/columns.js';
import { LoadError } from './load-error.js';

/** Arrow type of a column: int64 → Int64, float64 → Float64, boolean → Bool, timestamp → Timestamp(µs, UTC), string/json → Utf8, category → Dictionary<Utf8, Int32> with a stable id. */
export function arrowType(column: Column): DataType {
  switch (column.kind) {
    case 'int64':
      return new Int64();
    case 'float64':
      return new Float64();
    case 'boolean':
      return new Bool();
    case 'timestamp':
      return new TimestampMicrosecond('UTC');
    case 'string':
    case 'json':
      return new Utf8();
    case 'category':
      return new Dictionary(new Utf8(), new Int32(), dictionaryId(column), false);
  }
}

/** The dictionary id of a category column: its position in COLUMNS, so that ids are stable across runs and files. */
export function dictionaryId(column: Column): number {
  const id = COLUMNS.findIndex((c) => c.name === column.name);
  if (id < 0) throw new LoadError('LOAD_INVALID_OPTION', `load: column "${column.name}" is not one of COLUMNS`);
  return id;
}

/** The Arrow schema of the output: one nullable field per column of COLUMNS, in order, with optional schema metadata. */
export function arrowSchema(metadata?: Map<string, string>): Schema {
  return new Schema(
    COLUMNS.map((column) => new Field(column.name, arrowType(column), true)),
    metadata,
  );
}
