/** The Parquet size yardstick: DuckDB's own zstd Parquet of the same rows. */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlString } from './sql-string.js';

/** Sizes of img-etl's Parquet file and of DuckDB's copy of it, and the rows in each. */
export interface ParquetSizes {
  ourBytes: number;
  duckdbBytes: number;
  ourRows: number;
  duckdbRows: number;
}

/**
 * Copies `file` with `COPY (SELECT * FROM read_parquet(file)) TO … (FORMAT parquet, COMPRESSION zstd)` and compares
 * sizes.
 */
export async function compareWithDuckDB(file: string): Promise<ParquetSizes> {
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-bench-duckdb-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const copy = join(dir, 'duck.parquet');
    const query = `SELECT * FROM read_parquet(${sqlString(file)})`;
    await connection.run(`COPY (${query}) TO ${sqlString(copy)} (FORMAT parquet, COMPRESSION zstd)`);
    const rows = async (path: string): Promise<number> => {
      const sql = `SELECT count(*)::DOUBLE AS n FROM read_parquet(${sqlString(path)})`;
      const reader = await connection.runAndReadAll(sql);
      return Number(reader.getRowObjectsJS()[0]?.['n']);
    };
    return {
      ourBytes: (await stat(file)).size,
      duckdbBytes: (await stat(copy)).size,
      ourRows: await rows(file),
      duckdbRows: await rows(copy),
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}
