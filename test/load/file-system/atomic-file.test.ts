import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RowBatch } from '../../../src/schema/row.js';
import { AtomicFile } from '../../../src/load/file-system/atomic-file.js';
import { toArrowBatches, type LoadBatch } from '../../../src/load/arrow/arrow-batches.js';
import { LoadError } from '../../../src/text/load-error.js';
import { tee } from '../../../src/load/tee.js';
import { toArrow } from '../../../src/load/arrow/to-arrow.js';
import { toCsv } from '../../../src/load/csv/to-csv.js';
import { toParquet } from '../../../src/load/parquet/to-parquet.js';
import { toRejects } from '../../../src/load/to-rejects.js';
import { expectResultMatchesFile, listDir, removeDir, tempDir } from '../../helpers/readers.js';
import { fixtureBatches, makeRow, streamOf, TRICKY_TIMESTAMPS } from '../fixture-rows.js';
import { FROM_1970_TIMESTAMPS as FROM_1970 } from '../fixture-rows.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

describe('AtomicFile', () => {
  it('writes under a temporary name in the same folder and publishes on commit with size and sha256', async () => {
    const path = join(dir, 'images.parquet');
    const file = await AtomicFile.create(path, { bufferSize: 4 });
    expect(file.tempPath).toMatch(new RegExp(`^${dir}/\\.images\\.parquet\\.tmp-${process.pid}-[0-9a-f]{12}$`));
    await file.write('héllo ');
    await file.write(new Uint8Array([1, 2, 3]));
    await file.write('');
    expect(await listDir(dir)).toEqual([file.tempPath.slice(dir.length + 1)]);
    const digest = await file.commit();
    const bytes = await readFile(path);
    expect(bytes).toEqual(Buffer.concat([Buffer.from('héllo '), Buffer.from([1, 2, 3])]));
    expect(digest).toEqual({ bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await listDir(dir)).toEqual(['images.parquet']);
    await expect(file.write('more')).rejects.toMatchObject({ code: 'LOAD_WRITE_FAILED' });
  });

  it('removes the temporary file on abort and leaves an existing file alone', async () => {
    const path = join(dir, 'images.csv');
    await writeFile(path, 'old');
    const file = await AtomicFile.create(path);
    await file.write('new content');
    await file.flush();
    await file.abort();
    await file.abort();
    expect(await listDir(dir)).toEqual(['images.csv']);
    expect(await readFile(path, 'utf8')).toBe('old');
  });

  it('fails with LOAD_WRITE_FAILED when the folder does not exist', async () => {
    const error = await AtomicFile.create(join(dir, 'missing', 'x.csv')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).code).toBe('LOAD_WRITE_FAILED');
    expect((error as LoadError).message).toBe(
      `load: cannot write ${join(dir, 'missing', 'x.csv')}: no such file or folder (ENOENT)`,
    );
  });

  it('refuses a bad buffer size', async () => {
    await expect(AtomicFile.create(join(dir, 'x'), { bufferSize: 0 })).rejects.toMatchObject({
      code: 'LOAD_INVALID_OPTION',
    });
  });
});

type Sink = (source: AsyncIterable<LoadBatch>, path: string) => Promise<unknown>;
/** Each sink with the fixture timestamps it writes (the parquetjs engine refuses instants before 1970). */
const SINKS: [string, string, Sink, readonly bigint[]][] = [
  ['parquet (wasm)', 'images.parquet', (s, path) => toParquet(s, { path, engine: 'wasm' }), TRICKY_TIMESTAMPS],
  ['parquet (parquetjs)', 'images.parquet', (s, path) => toParquet(s, { path, engine: 'parquetjs' }), FROM_1970],
  ['arrow', 'images.arrow', (s, path) => toArrow(s, { path }), TRICKY_TIMESTAMPS],
  ['csv', 'images.csv', (s, path) => toCsv(s, { path }), TRICKY_TIMESTAMPS],
  ['rejects', 'rejects.ndjson', (s, path) => toRejects(s, { path }), TRICKY_TIMESTAMPS],
];

/** Pages that break after `pages` pages, the way a failed extraction would. */
async function* breaking(pages: number, error: Error, timestamps: readonly bigint[]): AsyncGenerator<RowBatch> {
  const batches = fixtureBatches(timestamps);
  for (let i = 0; i < pages; i++) yield batches[i]!;
  throw error;
}

describe.each(SINKS)('the %s sink', (_name, fileName, sink, timestamps) => {
  it(
    'leaves neither a final nor a temporary file when its source throws midway, and ' + 'keeps an existing file',
    async () => {
      const path = join(dir, fileName);
      const broken = new Error('extract: GET /api/images/?offset=200 returned 502 after 5 attempts');
      await expect(sink(toArrowBatches(breaking(2, broken, timestamps)), path)).rejects.toBe(broken);
      expect(await listDir(dir)).toEqual([]);

      await writeFile(path, 'previous snapshot');
      await expect(sink(toArrowBatches(breaking(2, broken, timestamps)), path)).rejects.toBe(broken);
      expect(await listDir(dir)).toEqual([fileName]);
      expect(await readFile(path, 'utf8')).toBe('previous snapshot');

      const source = toArrowBatches(streamOf(fixtureBatches(timestamps)));
      const result = (await sink(source, path)) as
        { path: string; bytes: number; sha256: string } | { file: { path: string; bytes: number; sha256: string } };
      await expectResultMatchesFile(('file' in result ? result.file : result) as never);
      expect(await listDir(dir)).toEqual([fileName]);
      expect(await readFile(path, 'utf8')).not.toBe('previous snapshot');
    },
  );
});

describe('sinks sharing one stream through tee', () => {
  it('publish all files from one pass over the pages', async () => {
    let pulls = 0;
    async function* pages() {
      for (const batch of fixtureBatches(FROM_1970)) {
        // a stream every sink writes, parquetjs too
        pulls++;
        yield batch;
      }
    }
    const streams = tee(toArrowBatches(pages()), SINKS.length);
    await Promise.all(SINKS.map(([, fileName, sink], i) => sink(streams[i]!, join(dir, `${i}-${fileName}`))));
    expect(pulls).toBe(fixtureBatches().length);
    expect(await listDir(dir)).toEqual(SINKS.map(([, fileName], i) => `${i}-${fileName}`).sort());
  });

  it('all fail and leave no file when one of them fails midway', async () => {
    const batches = fixtureBatches();
    const bad = makeRow(999, 3, 0);
    bad['add_date'] = 'not a bigint';
    batches[3]!.rows.push(bad);
    let released = false;
    async function* pages() {
      try {
        yield* batches;
      } finally {
        released = true;
      }
    }
    // The bad row fails toArrowBatches (feeding arrow and parquet) and the CSV sink's own check; the first failure
    // stops the rest.
    const [forCsv, forOthers] = tee(pages(), 2);
    const others = tee(toArrowBatches(forOthers!), 2);
    const outcomes = await Promise.allSettled([
      toCsv(forCsv!, { path: join(dir, 'images.csv') }),
      toArrow(others[0]!, { path: join(dir, 'images.arrow') }),
      toParquet(others[1]!, { path: join(dir, 'images.parquet') }),
    ]);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    const codes = outcomes.map((o) => ((o as PromiseRejectedResult).reason as LoadError).code);
    expect(codes.filter((c) => c === 'LOAD_INVALID_VALUE').length).toBeGreaterThanOrEqual(1);
    expect(codes.every((c) => c === 'LOAD_INVALID_VALUE' || c === 'LOAD_TEE_CONSUMER_STOPPED')).toBe(true);
    expect(released).toBe(true);
    expect(await listDir(dir)).toEqual([]);
  });
});

describe('writeJsonAtomic', () => {
  it('publishes pretty JSON atomically and refuses what JSON cannot hold, leaving no file', async () => {
    const { writeJsonAtomic } = await import('../../../src/load/file-system/write-json-atomic.js');
    const path = join(dir, 'manifest.json');
    const digest = await writeJsonAtomic(path, { rows: 3, files: ['a'] });
    const text = await readFile(path, 'utf8');
    expect(text).toBe('{\n  "rows": 3,\n  "files": [\n    "a"\n  ]\n}\n');
    expect(digest).toEqual({ bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') });
    const error = await writeJsonAtomic(join(dir, 'bad.json'), { n: 1n }).catch((e: unknown) => e);
    expect((error as LoadError).code).toBe('LOAD_ENCODE_FAILED');
    expect(await listDir(dir)).toEqual(['manifest.json']);
  });
});
