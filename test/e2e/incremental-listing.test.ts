/**
 * Issue 25: a collection the second read of the collections list no longer shows is not taken as gone on that read's
 * word. A collection deleted and another created between two of its pages leave the list's `count` as it was, so the
 * read is not begun again, and the deleted one's going shifts the next behind the read: the read names the deleted
 * collection and not the live one. Real CLI, the bundled service over loopback HTTP.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  expectExact,
  expectSameDataFiles,
  FORMATS,
  incrementalFixture,
  manifestOf,
  snapshotInProcess,
} from '../helpers/incremental-snapshots.js';
import { runCliHere } from '../helpers/run-cli.js';

const { serve, newDir } = incrementalFixture();

describe('a collection deleted and another created while the second read of the collections list pages it', () => {
  it('the live collection shifted behind the read is not dropped, nor the deleted one carried over', async () => {
    // Seed 74: collection 3 (on the list's first page of five) and 7 (the first of its second) hold as many images.
    // Deleted once the second read has asked for its first page, with a new collection created at the same time, 3's
    // going shifts 7 back onto that page, behind the read, and the list's count stays: the read names 3 and not 7.
    const s = await serve(400, 74);
    const base = await newDir();
    const list = (await (await fetch(`${s.url}/api/collections/?limit=100`)).json()) as {
      results: { id: number; number_of_images: number }[];
    };
    const shifted = list.results[5]!;
    const gone = list.results.slice(0, 5).find((c) => c.number_of_images === shifted.number_of_images)!;
    expect([gone.id, shifted.id]).toEqual([3, 7]);
    const args = [
      '--base-url',
      s.url,
      '--out',
      base,
      '--snapshot',
      ...FORMATS,
      '--page-size',
      '5',
      '--concurrency',
      '1',
    ];
    await snapshotInProcess(s, base, { pageSize: 5, concurrency: 1 }); // the base the run below builds on
    s.resetStats();
    s.setFaults({ pageLatencyMs: 400 });
    let ended = false;
    const running = runCliHere(args).finally(() => (ended = true));
    const firstRead = Math.ceil(list.results.length / 5); // the first read's pages; the next request is the second's
    while (!ended && s.stats.collectionRequests <= firstRead) await sleep(1);
    s.dataset.deleteCollection(gone.id);
    s.change({ kind: 'new-collection', collections: 1, seed: 5 });
    s.setFaults({ pageLatencyMs: 0 }); // the page in flight is still held; the rest need not be
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    // Collection 7 left the second read, yet its own list serves it: not dropped on that read's word.
    expect(run.stderr).toContain('img-etl: a full pass: the second read of the collections list left out collections');
    expect(await manifestOf(base)).toMatchObject({ kind: 'full' });
    await expectExact(s, base);
    const full = await newDir();
    const fullArgs = args.map((a) => (a === base ? full : a));
    expect((await runCliHere([...fullArgs, '--full'])).code).toBe(0);
    await expectSameDataFiles(base, full);
    expect((await manifestOf(base)).complete).toBe(true);
  });
});
