/** A table with columns added: what a pipeline that changes the table writes. */
import type { Column, ColumnType } from './column-type.js';
import { COLUMN_NAME, COLUMN_NAME_RULE } from './column-name.js';
import { loaderNameClash } from './loader-names.js';
import { defineTable, type Table } from './table.js';

/**
 * `table` with `columns` added after its own, before its `extra` column (which stays last), under the schema version
 * `<table's>+<added names>`; a column of a record key takes that key out of `extra`. Throws an Error naming the column
 * when a name is not of COLUMN_NAME (column-name.ts) or is taken (in any case, a loader's names too:
 * loader-names.ts, load.py's join suffix among them), a column would be a second `extra`, or its type is not a column
 * type.
 */
export function withColumns(table: Table, columns: readonly Column[]): Table {
  if (columns.length === 0) return table;
  // by lowercase name: DuckDB, the readers' first choice, tells no two names apart by case
  const taken = new Map(table.names.map((name) => [name.toLowerCase(), name]));
  const names = [...table.names, ...columns.map((c) => c.name)];
  for (const column of columns) {
    refuseColumn(table, column, taken, names);
    taken.set(column.name.toLowerCase(), column.name);
  }
  const own = table.columns.filter((c) => c !== table.extraColumn);
  // defineTable makes every lookup again from the columns: those of `table` spread here are replaced
  return defineTable({
    ...table,
    columns: [...own, ...columns, table.extraColumn],
    schemaVersion: `${table.schemaVersion}+${columns.map((c) => c.name).join('+')}`,
  });
}

/**
 * Throws the Error for a column `table` cannot take, beside `taken`, the names it has by their lowercase, and `names`,
 * every name of the table with the columns added. The name is checked first: a .mjs pipeline may give anything.
 */
function refuseColumn(
  table: Table,
  column: Column,
  taken: ReadonlyMap<string, string>,
  names: readonly string[],
): void {
  const refuse = (why: string) => {
    throw new Error(`schema: column ${String(JSON.stringify(column.name))} cannot be added: ${why}`);
  };
  if (typeof column.name !== 'string' || !COLUMN_NAME.test(column.name)) refuse(COLUMN_NAME_RULE);
  const near = taken.get(column.name.toLowerCase());
  if (column.origin === 'unknown-keys') refuse(`${table.name} has its extra column`);
  if (!isColumnType(column.type)) {
    const type = JSON.stringify(column.type) ?? String(column.type);
    refuse(
      `its type ${type} is not a column type; give one the library exports ` +
        '(int64, float64, string, boolean, timestamp, category, json)',
    );
  }
  if (near === column.name) refuse(`${table.name} already has one of that name`);
  const loaders = loaderNameClash(table.name, column.name, names);
  if (loaders !== undefined) refuse(`${loaders}; choose another`);
  if (near !== undefined)
    refuse(
      `${table.name} has "${near}", which differs only in case (DuckDB reads the two as one name); choose another`,
    );
}

/** Whether `type` is a column type (a .mjs file may give a type's name, or anything): what every writer calls on it. */
function isColumnType(type: unknown): type is ColumnType {
  const t = type as Partial<ColumnType> | null | undefined;
  return typeof t?.arrowType === 'function' && typeof t.holds === 'function' && typeof t.csvField === 'function';
}
