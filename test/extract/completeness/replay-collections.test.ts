/**
 * replayCollections: the collection records the run's collections list served, each id once, ascending, as served,
 * after collect() paged a list whose scan starts at a random row on every request (repeats and skips).
 */
import { mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { collect, type Collected } from '../../../src/extract/completeness/collect.js';
import { replayCollections } from '../../../src/extract/completeness/replay-collections.js';
import { recordTextOf } from '../../../src/schema/record-text.js';
import type { RunningService } from '../../../src/service/index.js';
import type { ValidBatch } from '../../../src/transform/validate.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let service: RunningService;
let dir: string;
let checkpoint: Checkpoint;
let collected: Collected;
const batches: ValidBatch[] = [];

beforeAll(async () => {
  service = await startFixtureService({
    records: 1500,
    seed: 51,
    faults: { unstableOrderRate: 1, unstableOrderMode: 'rotate', faultSeed: 2 },
  });
  dir = await tempDir();
  const identity = { source_url: service.listUrl, page_size: 10, started_at: new Date().toISOString() };
  checkpoint = await Checkpoint.open(join(dir, 'staging'), identity);
  collected = await collect({ baseUrl: service.url, pageSize: 10, concurrency: 2 }, checkpoint);
  for await (const batch of replayCollections(collected.collections, checkpoint, { batchSize: 16 }))
    batches.push(batch);
});

afterAll(async () => {
  await checkpoint?.remove();
  await service?.close();
  await removeDir(dir);
});

describe('replayCollections', () => {
  it('took more than one pass over the rotating collections list (guards the test)', () => {
    expect(collected.completeness.collections.passes).toBeGreaterThan(1);
    expect(collected.completeness.collections.complete).toBe(true);
  });

  it('yields every public collection once, ascending by id, in batches of the size asked for', () => {
    const ids = batches.flatMap((b) => b.records.map((r) => r['id'] as number));
    expect(ids).toEqual([...service.dataset.collections.publicIds()].sort((a, b) => a - b));
    expect(batches.slice(0, -1).every((b) => b.records.length === 16 && b.rejects.length === 0)).toBe(true);
  });

  it('each record is the one the service serves, its text byte for byte', async () => {
    for (const record of batches.flatMap((b) => b.records)) {
      const served = await fetch(`${service.url}/api/collections/${String(record['id'])}/`);
      const text = await served.text();
      expect(recordTextOf(record)).toBe(text);
      expect(record).toEqual(JSON.parse(text));
    }
  });

  it('leaves no file of its own in the staging folder, read to the end or stopped early', async () => {
    const own = async () => (await readdir(checkpoint.dir)).filter((name) => name.startsWith('spill-'));
    expect(await own()).toEqual([]);
    for await (const batch of replayCollections(collected.collections, checkpoint, { batchSize: 16 })) {
      expect(batch.records.length).toBe(16);
      expect(await own()).toEqual(['spill-collections.bin']);
      break;
    }
    expect(await own()).toEqual([]);
  });

  it('a file-system error on its spill file is the staging’s one line naming the file', async () => {
    const path = join(checkpoint.dir, 'spill-collections.bin');
    await mkdir(path); // a folder in the way of the spill file
    try {
      const replay = replayCollections(collected.collections, checkpoint)[Symbol.asyncIterator]();
      await expect(replay.next()).rejects.toMatchObject({
        code: 'LOAD_WRITE_FAILED',
        message: `staging: cannot write to ${path}: a folder is in the way (EISDIR)`,
      });
    } finally {
      await rmdir(path);
    }
  });
});
