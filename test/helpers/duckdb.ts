import { DuckDBInstance } from '@duckdb/node-api';

/** Result of a DuckDB query: column names and types, and rows as JS values (BIGINT as bigint). */
export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}

/** Runs one SQL statement in a fresh in-memory DuckDB: the independent reader of every file the tool writes. */
export async function duckdb(sql: string): Promise<QueryResult> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    const types = reader.columnTypes().map((t) => t.toString());
    return { columns: reader.columnNames().map((name, i) => ({ name, type: types[i]! })), rows: reader.getRowObjectsJS() as Record<string, unknown>[] };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
