/** The check of a peer's file: DuckDB reads it back and counts its rows and distinct ids. */
import { DuckDBInstance } from '@duckdb/node-api';
import type { PeerFormat } from './duckdb-peer-job.js';
import { sqlString } from './sql-string.js';

/** Rows in a file and distinct values of its `id` column. */
export interface FileCount {
  rows: number;
  ids: number;
}

/** Reads `file` (Parquet or CSV with a header) with DuckDB and counts rows and distinct ids. */
export async function countRowsAndIds(file: string, format: PeerFormat): Promise<FileCount> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const sql = `SELECT count(*)::DOUBLE AS rows, count(DISTINCT id)::DOUBLE AS ids FROM ${readFunction(file, format)}`;
    const reader = await connection.runAndReadAll(sql);
    const row = reader.getRowObjectsJS()[0];
    return { rows: Number(row?.['rows']), ids: Number(row?.['ids']) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The DuckDB table function that reads `file`: `read_parquet(…)` or `read_csv(…, header = true)`. */
export function readFunction(file: string, format: PeerFormat): string {
  return format === 'parquet' ? `read_parquet(${sqlString(file)})` : `read_csv(${sqlString(file)}, header = true)`;
}
