/** A sink's file is written whole or not at all, and its source is released whatever fails (writeSinkFile). */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeSinkFile } from '../../src/load/write-sink-file.js';
import { listDir, removeDir, tempDir } from '../helpers/readers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

/** A source of `n` numbers that records whether it was released (its generator's finally ran). */
function source(n: number): { items: AsyncIterable<number>; released: () => boolean } {
  let released = false;
  const items = (async function* () {
    try {
      for (let i = 0; i < n; i++) yield i;
    } finally {
      released = true;
    }
  })();
  return { items, released: () => released };
}

describe('writeSinkFile', () => {
  it('publishes the file once written, with its rows, size and sha256', async () => {
    const path = join(dir, 'out.txt');
    const { items } = source(3);
    const result = await writeSinkFile(items, 'csv', path, async (file) => {
      let rows = 0;
      for await (const i of items) {
        await file.write(`${i}\n`);
        rows++;
      }
      return rows;
    });
    const bytes = await readFile(path);
    expect(bytes.toString()).toBe('0\n1\n2\n');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(result).toEqual({ format: 'csv', path, rows: 3, bytes: 6, sha256 });
    expect(await listDir(dir)).toEqual(['out.txt']);
  });

  it('keeps the file that was there, removes its temporary file and releases the source on failure', async () => {
    const path = join(dir, 'out.txt');
    await writeFile(path, 'the earlier run\n');
    const { items, released } = source(3);
    const failing = writeSinkFile(items, 'csv', path, async (file) => {
      await file.write('half of a file');
      await file.flush();
      throw new Error('the encoder failed');
    });
    await expect(failing).rejects.toThrow('the encoder failed');
    expect(await readFile(path, 'utf8')).toBe('the earlier run\n');
    expect(await listDir(dir)).toEqual(['out.txt']);
    // the write never read the source: it is released so that whatever feeds it stops too
    await expect(items[Symbol.asyncIterator]().next()).resolves.toEqual({ done: true, value: undefined });
    expect(released()).toBe(false); // a generator never started has no finally to run, and is done
  });

  it('releases a source it had started reading when the write fails midway', async () => {
    const { items, released } = source(10);
    const failing = writeSinkFile(items, 'arrow', join(dir, 'x.arrow'), async () => {
      for await (const i of items) if (i === 2) throw new Error('stop');
      return 0;
    });
    await expect(failing).rejects.toThrow('stop');
    expect(released()).toBe(true);
    expect(await listDir(dir)).toEqual([]);
  });

  it('names the path in a one-line LoadError when the folder cannot take the file', async () => {
    const path = join(dir, 'missing-folder', 'out.txt');
    const { items } = source(1);
    const failing = writeSinkFile(items, 'parquet', path, () => Promise.resolve(0));
    const error = (await failing.catch((e: unknown) => e)) as { code?: string; message?: string };
    expect(error.code).toBe('LOAD_WRITE_FAILED');
    expect(error.message).toContain(path);
  });
});
