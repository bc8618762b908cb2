/**
 * What a table is: a name, its file names, its columns and its schema version, with the lookups every stage reads
 * made once. The record check, normalisation, the Arrow schema, the writers, CSV and diff take a table; IMAGES
 * (columns.ts) and COLLECTIONS (collection-columns.ts) are the two img-etl writes.
 */
import type { Column } from './column-type.js';
import type { Row } from './row.js';

/** The files a table is written to: one per data format, and its rejects. */
export interface TableFiles {
  /** Parquet file name, e.g. `images.parquet`. */
  readonly parquet: string;
  /** Arrow IPC file name. */
  readonly arrow: string;
  /** CSV file name. */
  readonly csv: string;
  /** NDJSON file of the records that broke the table's schema. */
  readonly rejects: string;
}

/** The files a diff of a table is written to. */
export interface TableDiffFiles {
  /** Parquet file name, e.g. `diff.parquet`. */
  readonly parquet: string;
  /** CSV file name. */
  readonly csv: string;
}

/** What defines a table; `defineTable` adds the lookups. */
export interface TableDefinition {
  /** The table's name: `images`, `collections`. */
  readonly name: string;
  /** Every column in output order; exactly one of origin `unknown-keys`. */
  readonly columns: readonly Column[];
  /** Version of the table's schema; bump when a column is added, removed or changes type. */
  readonly schemaVersion: string;
  /** Its files in a snapshot folder. */
  readonly files: TableFiles;
  /** Its files in a diff's output folder. */
  readonly diffFiles: TableDiffFiles;
  /**
   * Columns each row of its diff carries beside the id, so that a reader sees which record it is without a join: the
   * record's values in the new snapshot, or in the old one for a removed record; default none.
   */
  readonly diffContext?: readonly string[];
  /**
   * Rows per Parquet row group, when not the writer's default (25,000): parquet-wasm's memory follows the row group
   * being written and never shrinks, so a table of wide rows takes smaller groups.
   */
  readonly parquetRowGroupRows?: number;
}

/** A table with the lookups the stages read. */
export interface Table extends TableDefinition {
  /** Column names in output order. */
  readonly names: readonly string[];
  /** Columns that come from record keys, in output order. */
  readonly recordColumns: readonly Column[];
  /** The record columns by name: what a record's key is. */
  readonly recordColumnByName: ReadonlyMap<string, Column>;
  /** Names of the record keys the table knows; every other key goes to `extra`. */
  readonly knownKeys: ReadonlySet<string>;
  /** How many record columns are required (a record lacking one is rejected). */
  readonly requiredCount: number;
  /** Columns computed from other keys, in output order. */
  readonly derivedColumns: readonly Column[];
  /** The column that holds the record's keys no other column names: `extra`. */
  readonly extraColumn: Column;
  /** A row of nulls in column order: each normalised row starts as a copy, so that all rows have one shape. */
  readonly nullRow: Readonly<Row>;
  /** The columns of `diffContext`, in its order. */
  readonly diffContextColumns: readonly Column[];
}

/** A table from its definition, with its lookups. */
export function defineTable(definition: TableDefinition): Table {
  const { columns } = definition;
  const recordColumns = columns.filter((c) => c.origin === 'record');
  const extras = columns.filter((c) => c.origin === 'unknown-keys');
  if (extras.length !== 1)
    throw new Error(`schema: table ${definition.name} has ${extras.length} extra columns, not 1`);
  const diffContextColumns = (definition.diffContext ?? []).map((name) => {
    const column = columns.find((c) => c.name === name);
    if (column === undefined) throw new Error(`schema: table ${definition.name} has no column ${name} (diffContext)`);
    return column;
  });
  return {
    ...definition,
    names: columns.map((c) => c.name),
    recordColumns,
    recordColumnByName: new Map(recordColumns.map((c) => [c.name, c])),
    knownKeys: new Set(recordColumns.map((c) => c.name)),
    requiredCount: recordColumns.filter((c) => c.required).length,
    derivedColumns: columns.filter((c) => c.origin === 'derived'),
    extraColumn: extras[0]!,
    nullRow: Object.fromEntries(columns.map((c) => [c.name, null])),
    diffContextColumns,
  };
}
