/**
 * The footer's key-value entries are put in key order in place (parquet-key-value-order.ts): the same data then
 * gives the same bytes however many files the process wrote before, and the file stays readable, values intact.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import fc from 'fast-check';
import * as parquetWasm from 'parquet-wasm/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sortFooterKeyValues } from '../../../src/load/parquet/parquet-key-value-order.js';
import { toParquet } from '../../../src/load/parquet/to-parquet.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { toArrowBatches } from '../../../src/load/arrow/arrow-batches.js';
import { fixtureBatches, streamOf } from '../fixture-rows.js';

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

const keyValues = async (path: string) =>
  query(duck, `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${sqlString(path)})`);

/** A small Parquet file written by parquet-wasm with the given key-value metadata, in whatever order it chose. */
function parquetWith(metadata: Map<string, string>): Uint8Array {
  const ipc = tableToIPC(tableFromArrays({ n: Float64Array.from([1, 2, 3]), s: ['a', 'bb', 'ccc'] }), 'stream');
  return parquetWasm.writeParquet(
    parquetWasm.Table.fromIPCStream(ipc),
    new parquetWasm.WriterPropertiesBuilder().setKeyValueMetadata(metadata).build(),
  );
}

describe('sortFooterKeyValues', () => {
  it('is still needed: parquet-wasm alone writes the same data with the entries in varying orders', () => {
    // When this fails, parquet-wasm keeps the order it is given, and this file and its Thrift reader can go.
    const metadata = new Map([
      ['img-etl.source_url', 'http://x/api/images/'],
      ['img-etl.schema_version', '1'],
      ['img-etl.snapshot_time', '2026-11-21T00:00:00.000Z'],
    ]);
    const files = new Set<string>();
    for (let i = 0; i < 20; i++) files.add(Buffer.from(parquetWith(metadata)).toString('base64'));
    expect(files.size).toBeGreaterThan(1);
  });

  it('orders the entries by key and keeps the file readable with the same values and metadata', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, unit: 'grapheme' }), fc.string({ maxLength: 300 })), {
          minLength: 1,
          maxLength: 12,
          selector: ([k]) => k,
        }),
        async (pairs) => {
          const bytes = parquetWith(new Map(pairs));
          expect(sortFooterKeyValues(bytes)).toBe(true);
          const path = join(dir, `kv-${n++}.parquet`);
          await writeFile(path, bytes);
          const kv = (await keyValues(path)).filter((e) => e['key'] !== 'ARROW:schema');
          expect(kv.map((e) => e['key'])).toEqual(pairs.map(([k]) => k).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
          expect(Object.fromEntries(kv.map((e) => [e['key'], e['value']]))).toEqual(Object.fromEntries(pairs));
          expect(await query(duck, `SELECT n, s FROM read_parquet(${sqlString(path)})`)).toEqual([
            { n: 1, s: 'a' },
            { n: 2, s: 'bb' },
            { n: 3, s: 'ccc' },
          ]);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('leaves bytes that hold no whole footer untouched', () => {
    const whole = parquetWith(
      new Map([
        ['b', '2'],
        ['a', '1'],
      ]),
    );
    for (const part of [
      whole.slice(0, whole.length - 1),
      whole.slice(whole.length - 40),
      new Uint8Array(8),
      new TextEncoder().encode('not a parquet file at all PAR1'),
    ]) {
      const before = part.slice();
      expect(sortFooterKeyValues(part)).toBe(false);
      expect(part).toEqual(before);
    }
  });

  it('toParquet writes the same bytes for the same data, however many files the process wrote before', async () => {
    const metadata = {
      'img-etl.source_url': 'http://x/api/images/',
      'img-etl.schema_version': '1',
      'img-etl.snapshot_time': '2026-11-21T00:00:00.000Z',
    };
    const files: Buffer[] = [];
    for (let i = 0; i < 4; i++) {
      const path = join(dir, `same-${i}.parquet`);
      await toParquet(toArrowBatches(streamOf(fixtureBatches())), { path, metadata });
      files.push(await readFile(path));
    }
    for (const file of files.slice(1)) expect(file.equals(files[0]!)).toBe(true);
    expect((await keyValues(join(dir, 'same-0.parquet'))).map((e) => e['key'])).toEqual([
      'ARROW:schema',
      'img-etl.schema_version',
      'img-etl.snapshot_time',
      'img-etl.source_url',
    ]);
  });
});
