/**
 * The footer check's reader (parquet-footer.ts, on thrift-compact-reader.ts) gives the row counts DuckDB reads from
 * the same files, for both engines and several row groups, and refuses files that are cut short.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { toArrowBatches } from '../../src/load/arrow-batches.js';
import { readParquetFooterRows } from '../../src/load/parquet-footer.js';
import { toParquet, type ParquetEngine } from '../../src/load/to-parquet.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { fixtureBatches, streamOf, timestampsFor } from './fixture-rows.js';

let duck: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  duck = await openDuckDB();
  dir = await tempDir();
});
afterAll(async () => {
  duck.closeSync();
  await removeDir(dir);
});

describe('readParquetFooterRows', () => {
  for (const [engine, rowGroupSize] of [
    ['wasm', 7],
    ['wasm', 1000],
    ['parquetjs', 10],
  ] as [ParquetEngine, number][]) {
    it(`reads the row counts DuckDB reads (${engine}, row groups of ${rowGroupSize})`, async () => {
      const path = join(dir, `${engine}-${rowGroupSize}.parquet`);
      await toParquet(toArrowBatches(streamOf(fixtureBatches(timestampsFor(engine)))), { path, engine, rowGroupSize });
      const groups = await query(
        duck,
        `SELECT row_group_id, max(row_group_num_rows) AS n FROM parquet_metadata(${sqlString(path)}) ` +
          `GROUP BY row_group_id ORDER BY row_group_id`,
      );
      const footer = await readParquetFooterRows(path);
      expect(footer.rowGroups).toEqual(groups.map((g) => Number(g['n'])));
      expect(footer.rows).toBe(36);
      expect(footer.rowGroups.length).toBeGreaterThan(rowGroupSize < 36 ? 1 : 0);
    });
  }

  it('refuses a file cut short or with a damaged footer, with the reason', async () => {
    const path = join(dir, 'whole.parquet');
    await toParquet(toArrowBatches(streamOf(fixtureBatches())), { path });
    const whole = await readFile(path);
    const length = whole.readUInt32LE(whole.length - 8);
    const cut = join(dir, 'cut.parquet');
    await writeFile(cut, whole.subarray(0, whole.length - 3));
    await expect(readParquetFooterRows(cut)).rejects.toThrow('does not end with the parquet magic');
    const damaged = Buffer.from(whole);
    damaged.fill(0xff, whole.length - 8 - length, whole.length - 8 - length + 40); // the footer's first fields
    const bad = join(dir, 'bad.parquet');
    await writeFile(bad, damaged);
    await expect(readParquetFooterRows(bad)).rejects.toThrow();
  });
});
