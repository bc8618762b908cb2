/** A table with columns added: what a pipeline that changes the table writes. */
import type { Column, ColumnType } from './column-type.js';
import { defineTable, type Table } from './table.js';

/**
 * `table` with `columns` added after its own, before its `extra` column (which stays last), under the schema version
 * `<table's>+<added names>`; a column of a record key takes that key out of `extra`. Throws an Error naming the column
 * when a name is taken, a column would be a second `extra`, or its type is not a column type.
 */
export function withColumns(table: Table, columns: readonly Column[]): Table {
  if (columns.length === 0) return table;
  const taken = new Set(table.names);
  for (const column of columns) {
    if (column.origin === 'unknown-keys')
      throw new Error(`schema: column "${column.name}" cannot be added: ${table.name} has its extra column`);
    if (!isColumnType(column.type)) {
      const type = JSON.stringify(column.type) ?? String(column.type);
      throw new Error(
        `schema: column "${column.name}" cannot be added: its type ${type} is not a column type; give one the ` +
          'library exports (int64, float64, string, boolean, timestamp, category, json)',
      );
    }
    if (taken.has(column.name))
      throw new Error(`schema: column "${column.name}" cannot be added: ${table.name} already has one of that name`);
    taken.add(column.name);
  }
  const own = table.columns.filter((c) => c !== table.extraColumn);
  return defineTable({
    name: table.name,
    columns: [...own, ...columns, table.extraColumn],
    schemaVersion: `${table.schemaVersion}+${columns.map((c) => c.name).join('+')}`,
    files: table.files,
    diffFiles: table.diffFiles,
    ...(table.parquetRowGroupRows === undefined ? {} : { parquetRowGroupRows: table.parquetRowGroupRows }),
  });
}

/** Whether `type` is a column type (a .mjs file may give a type's name, or anything): what every writer calls on it. */
function isColumnType(type: unknown): type is ColumnType {
  const t = type as Partial<ColumnType> | null | undefined;
  return typeof t?.arrowType === 'function' && typeof t.holds === 'function' && typeof t.csvField === 'function';
}
