/** images.index with ids past 2^32 and up to 2^53 - 1: written and read back exactly, merged by value. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotIndexReader } from '../../../src/run/index/snapshot-index-reader.js';
import { SnapshotIndexWriter } from '../../../src/run/index/snapshot-index-writer.js';
import type { Row, RowBatch } from '../../../src/schema/row.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function writeIndex(rows: Row[]): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'index-ids-'));
  dirs.push(dir);
  const writer = await SnapshotIndexWriter.create(dir);
  const batch = { source: {}, rows, rejects: [] } as unknown as RowBatch;
  async function* one() {
    yield batch;
  }
  for await (const _ of writer.observe(one()));
  return (await writer.finish()) === undefined ? undefined : dir;
}

async function readIds(dir: string): Promise<number[]> {
  const reader = await SnapshotIndexReader.open(dir);
  if ('none' in reader) throw new Error(reader.none);
  const ids: number[] = [];
  while (await reader.ready()) for (; reader.hasRow(); reader.next()) ids.push(reader.id());
  await reader.close();
  return ids;
}

describe('images.index ids', () => {
  it('keeps ids past 2^32 and up to 2^53 - 1 exactly, in order', async () => {
    const ids = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 52 + 3, Number.MAX_SAFE_INTEGER];
    const dir = await writeIndex(ids.map((id) => ({ id, name: `n${id}` })));
    expect(await readIds(dir!)).toEqual(ids);
  });

  it('writes no index when an id is not a safe integer', async () => {
    expect(await writeIndex([{ id: 1 }, { id: 2 ** 53 }])).toBeUndefined();
  });
});
