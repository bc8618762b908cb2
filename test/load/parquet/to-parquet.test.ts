import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { COLUMNS } from '../../../src/schema/columns.js';
import type { Row, RowBatch } from '../../../src/schema/row.js';
import { toArrowBatches, type LoadBatch } from '../../../src/load/arrow/arrow-batches.js';
import { toParquet, type ParquetEngine } from '../../../src/load/parquet/to-parquet.js';
import { LoadError } from '../../../src/text/load-error.js';
import {
  exactSelectList,
  expectResultMatchesFile,
  expectSameRows,
  listDir,
  openDuckDB,
  query,
  removeDir,
  sqlString,
  tempDir,
} from '../../helpers/readers.js';
import { fixtureBatches, fixtureRows, makeRow, streamOf, timestampsFor } from '../fixture-rows.js';

const DUCK_TYPES: Record<string, string> = {
  int64: 'BIGINT',
  float64: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  string: 'VARCHAR',
  category: 'VARCHAR',
  json: 'VARCHAR',
};

/** The DuckDB types of an engine's file: parquetjs-lite's TIMESTAMP_MICROS has no UTC flag; DuckDB reads TIMESTAMP. */
const duckTypes = (engine: ParquetEngine): Record<string, string> => {
  return engine === 'parquetjs' ? { ...DUCK_TYPES, timestamp: 'TIMESTAMP' } : DUCK_TYPES;
};

const METADATA = {
  'img-etl.source_url': 'http://neurovault.org/api/images/',
  'img-etl.snapshot_time': '2024-05-01T12:00:00.123456Z',
  'img-etl.schema_version': '1',
};

let duck: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  duck = await openDuckDB();
});
afterAll(() => duck.closeSync());
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

describe.each<{ engine: ParquetEngine; codec: string }>([
  { engine: 'wasm', codec: 'ZSTD' },
  { engine: 'parquetjs', codec: 'SNAPPY' },
])('toParquet with the $engine engine', ({ engine, codec }) => {
  const timestamps = timestampsFor(engine);

  it(
    'writes a file DuckDB reads back value by value, with exact types, metadata, ' + 'compression and row groups',
    async () => {
      const path = join(dir, 'images.parquet');
      const source = toArrowBatches(streamOf(fixtureBatches(timestamps)));
      const result = await toParquet(source, { path, engine, rowGroupSize: 10, metadata: METADATA });
      const rows = fixtureRows(timestamps);
      expect(result).toMatchObject({ format: 'parquet', path, rows: rows.length });
      await expectResultMatchesFile(result);
      expect(await listDir(dir)).toEqual(['images.parquet']);
      const file = sqlString(path);

      const described = await query(duck, `DESCRIBE SELECT * FROM read_parquet(${file})`);
      expect(described.map((d) => [d['column_name'], d['column_type']])).toEqual(
        COLUMNS.map((c) => [c.name, duckTypes(engine)[c.type.kind]]),
      );

      const read = await query(duck, `SELECT ${exactSelectList()} FROM read_parquet(${file})`);
      expectSameRows(read, rows);

      const kv = await query(
        duck,
        `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${file})`,
      );
      const pairs = Object.fromEntries(kv.map((r) => [String(r['key']), r['value']] as const));
      expect(pairs).toMatchObject(METADATA);
      if (engine === 'wasm')
        expect(Object.keys(pairs).sort()).toEqual(['ARROW:schema', ...Object.keys(METADATA)].sort());
      else expect(Object.keys(pairs).sort()).toEqual(Object.keys(METADATA).sort());

      const groups = await query(
        duck,
        `SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${file}) ORDER BY row_group_id`,
      );
      // 36 rows in groups of 10, whatever the page sizes
      expect(groups.map((g) => Number(g['row_group_num_rows']))).toEqual([10, 10, 10, 6]);
      const codecs = await query(duck, `SELECT DISTINCT compression FROM parquet_metadata(${file})`);
      expect(codecs.map((c) => c['compression'])).toEqual([codec]);

      const schema = await query(
        duck,
        `SELECT name, type, converted_type, logical_type FROM parquet_schema(${file}) WHERE ` +
          `name = 'add_date' OR name = 'name' OR name = 'id'`,
      );
      const byName = Object.fromEntries(schema.map((s) => [String(s['name']), s] as const));
      expect(byName['add_date']).toMatchObject({ type: 'INT64' });
      if (engine === 'wasm') {
        expect(String(byName['add_date']!['logical_type'])).toMatch(/isAdjustedToUTC=1/);
        expect(String(byName['add_date']!['logical_type'])).toMatch(/MICROS/);
      } else expect(byName['add_date']).toMatchObject({ converted_type: 'TIMESTAMP_MICROS' });
      expect(byName['name']).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
      expect(byName['id']).toMatchObject({ type: 'INT64' });

      if (engine === 'wasm') {
        const encodings = await query(
          duck,
          `SELECT DISTINCT encodings FROM parquet_metadata(${file}) WHERE path_in_schema = 'map_type'`,
        );
        expect(String(encodings[0]!['encodings'])).toMatch(/RLE_DICTIONARY/);
      }
    },
  );

  it('finds rows by strings outside the BMP: no statistics that would skip a matching row group', async () => {
    const path = join(dir, 'stats.parquet');
    const first = makeRow(1, 0, 0, false, timestamps);
    first['name'] = 'emoji 😀';
    const second = makeRow(2, 0, 1, false, timestamps);
    second['name'] = 'fullwidth ！';
    await toParquet(
      toArrowBatches(streamOf([{ source: { url: 'u', offset: 0 }, rows: [first, second], rejects: [] }])),
      { path, engine },
    );
    const found = await query(duck, `SELECT id FROM read_parquet(${sqlString(path)}) WHERE name = 'emoji 😀'`);
    expect(found).toEqual([{ id: 1n }]);
    const range = await query(
      duck,
      `SELECT id FROM read_parquet(${sqlString(path)}) WHERE name > 'fullwidth ！' ORDER BY id`,
    );
    expect(range).toEqual([]);
  });

  it('writes a valid file with the full schema and no rows from a stream without batches', async () => {
    const path = join(dir, 'empty.parquet');
    const result = await toParquet(toArrowBatches(streamOf([])), { path, engine, metadata: METADATA });
    expect(result.rows).toBe(0);
    await expectResultMatchesFile(result);
    const described = await query(duck, `DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
    expect(described.map((d) => [d['column_name'], d['column_type']])).toEqual(
      COLUMNS.map((c) => [c.name, duckTypes(engine)[c.type.kind]]),
    );
    expect(await query(duck, `SELECT count(*) AS n FROM read_parquet(${sqlString(path)})`)).toEqual([{ n: 0n }]);
  });
});

describe('toParquet on many pages', () => {
  it.each<{ engine: ParquetEngine; total: number; rowGroupSize: number; groups: number[] }>([
    { engine: 'wasm', total: 20_000, rowGroupSize: 7_000, groups: [7_000, 7_000, 6_000] },
    { engine: 'parquetjs', total: 2_500, rowGroupSize: 1_000, groups: [1_000, 1_000, 500] },
  ])(
    '$engine: streams $total rows in pages of 100 into row groups of exactly $rowGroupSize',
    async ({ engine, total, rowGroupSize, groups }) => {
      const pages: RowBatch[] = [];
      for (let offset = 0; offset < total; offset += 100) {
        const rows: Row[] = [];
        for (let i = offset; i < offset + 100; i++) rows.push(makeRow(i + 1, i % 4, i, false, timestampsFor(engine)));
        pages.push({ source: { url: `http://x/?offset=${offset}`, offset }, rows, rejects: [] });
      }
      const path = join(dir, 'many.parquet');
      const result = await toParquet(toArrowBatches(streamOf(pages)), { path, engine, rowGroupSize });
      expect(result.rows).toBe(total);
      const file = sqlString(path);
      const sizes = await query(
        duck,
        `SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${file}) ORDER BY row_group_id`,
      );
      expect(sizes.map((g) => Number(g['row_group_num_rows']))).toEqual(groups);
      const [summary] = await query(
        duck,
        `SELECT count(*) AS n, sum(id) AS ids, count(DISTINCT map_type) AS types FROM read_parquet(${file})`,
      );
      const types = new Set(pages.flatMap((p) => p.rows.map((r) => r['map_type'])).filter((t) => t !== null)).size;
      expect(types).toBeGreaterThan(1);
      expect(summary).toEqual({ n: BigInt(total), ids: BigInt((total * (total + 1)) / 2), types: BigInt(types) });
      const sample = [0, 99, 100, 8191, 8192, total - 1].filter((i) => i < total);
      const read = await query(
        duck,
        `SELECT ${exactSelectList()} FROM read_parquet(${file}) WHERE id IN (${sample.map((i) => i + 1).join(', ')}) ` +
          `ORDER BY id`,
      );
      expectSameRows(
        read,
        sample.map((i) => pages[Math.floor(i / 100)]!.rows[i % 100]!),
      );
    },
  );
});

describe('toParquet options', () => {
  it('refuses an unknown engine and a bad row group size, releasing the source and leaving no file', async () => {
    let released = 0;
    // A source toParquet never starts reading: only its iterator's return() can tell that it was released.
    const source = (): AsyncIterable<LoadBatch> => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new Error('test: the source was read')),
        return: () => {
          released++;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    });
    const path = join(dir, 'x.parquet');
    for (const options of [{ engine: 'duckdb' as ParquetEngine }, { rowGroupSize: 0 }, { rowGroupSize: 1.5 }]) {
      const error = await toParquet(source(), { path, ...options }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LoadError);
      expect((error as LoadError).code).toBe('LOAD_INVALID_OPTION');
    }
    expect(released).toBe(3);
    expect(await listDir(dir)).toEqual([]);
  });

  it('refuses an instant before 1970 with the parquetjs engine, naming row, column and value; no file', async () => {
    const row = makeRow(1, 0, 0);
    row['add_date'] = -1n;
    const rows = [makeRow(7, 0, 0, false, timestampsFor('parquetjs')), row];
    const source = toArrowBatches(streamOf([{ source: { url: 'http://x/page', offset: 0 }, rows, rejects: [] }]));
    const path = join(dir, 'old.parquet');
    const error = await toParquet(source, { path, engine: 'parquetjs' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).code).toBe('LOAD_INVALID_VALUE');
    expect((error as LoadError).message).toBe(
      'load: row 1 (id 1) of http://x/page: column "add_date" holds -1n (bigint), expected an instant from 1970 on ' +
        '(parquetjs-lite refuses earlier ones; the default wasm engine writes any instant)',
    );
    expect(await listDir(dir)).toEqual([]);
  });
});
