/**
 * What parquet-wasm-writer.ts works around, and that its checks are in effect: parquet-wasm's streaming writer still
 * leaves out a batch it fails to write without a word (when this test fails, the row-count check can go), and
 * writeParquetWasm turns that into an error naming the counts, with no file published.
 */
import { join } from 'node:path';
import { Table, tableFromArrays, tableToIPC, type RecordBatch } from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicFile } from '../../../src/load/file-system/atomic-file.js';
import { writeParquetWasm } from '../../../src/load/parquet/parquet-wasm-writer.js';
import { LoadError } from '../../../src/text/load-error.js';
import { listDir, removeDir, tempDir } from '../../helpers/readers.js';
import { streamOf } from '../fixture-rows.js';

// Batches of at least the writer's hand-over size (2048 rows) reach parquet-wasm one by one. The refused batch must not
// cross a row group's end: there parquet-wasm 0.7.2 fails otherwise, with an uncaught RangeError (stack overflow)
// from WebAssembly that ends the process, which no check after the write can turn into an error.
const ONE_GROUP = 1_000_000;
const ROWS = 3000;
const floats = (): RecordBatch => tableFromArrays({ n: Float64Array.from({ length: ROWS }, (_, i) => i) }).batches[0]!;
/** Same column name, another type: parquet-wasm's writer refuses it once the file's schema is the floats'. */
const ints = (): RecordBatch => tableFromArrays({ n: Int32Array.from({ length: ROWS }, (_, i) => i) }).batches[0]!;

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

describe('writeParquetWasm', () => {
  it('parquet-wasm alone drops a batch it cannot write and reports nothing', async () => {
    const batches = [floats(), ints(), floats()].map(
      (b) => parquetWasm.Table.fromIPCStream(tableToIPC(new Table(b), 'stream')).recordBatches()[0]!,
    );
    const input = new ReadableStream({ pull: (c) => (batches.length > 0 ? c.enqueue(batches.shift()) : c.close()) });
    const output = (await parquetWasm.transformParquetStream(input)) as ReadableStream<Uint8Array>;
    const chunks: Uint8Array[] = [];
    for await (const chunk of output) chunks.push(chunk); // no error
    const file = await parquetWasm.ParquetFile.fromFile(new Blob(chunks));
    expect(file.metadata().fileMetadata().numRows()).toBe(2 * ROWS);
  });

  it('fails with the counts when parquet-wasm wrote fewer rows than it was given, and publishes nothing', async () => {
    const path = join(dir, 'short.parquet');
    const file = await AtomicFile.create(path);
    const error = await writeParquetWasm(streamOf([floats(), ints(), floats()]), file, {
      rowGroupSize: ONE_GROUP,
      metadata: {},
      empty: floats().slice(0, 0),
      dictionaryColumns: [],
    }).catch((e: unknown) => e);
    await file.abort();
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).code).toBe('LOAD_ENCODE_FAILED');
    expect((error as LoadError).message).toBe(
      `load: parquet-wasm wrote 6000 rows (row groups: 6000) of the 9000 it was given to ${path}`,
    );
    expect(await listDir(dir)).toEqual([]);
  });

  it('returns the rows written when the footer holds them all', async () => {
    const file = await AtomicFile.create(join(dir, 'whole.parquet'));
    const rows = await writeParquetWasm(streamOf([floats(), floats()]), file, {
      rowGroupSize: 2500,
      metadata: { a: '1' },
      empty: floats().slice(0, 0),
      dictionaryColumns: [],
    });
    await file.commit();
    expect(rows).toBe(2 * ROWS);
    expect(await listDir(dir)).toEqual(['whole.parquet']);
  });
});
