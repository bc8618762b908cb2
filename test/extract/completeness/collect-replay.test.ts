/**
 * A resumed full run replays what earlier processes staged in journal order: an image-list page staged without a body
 * (its records already held, from a collection's own list staged before it) follows that collection's page in the
 * journal, and replaying it first would find records it keeps but no staged body.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { collect } from '../../../src/extract/completeness/collect.js';
import { PageCache } from '../../../src/extract/staging/page-cache.js';
import { RecordIndex } from '../../../src/extract/staging/record-index.js';
import { savePage } from '../../../src/extract/staging/save-page.js';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let service: RunningService | undefined;
let dir: string | undefined;
afterEach(async () => {
  await service?.close();
  if (dir !== undefined) await removeDir(dir);
  service = dir = undefined;
});

/** A page of a list as paginate gives it, fetched whole. */
async function batchOf(url: string, offset: number, limit: number) {
  const response = await fetch(url);
  const body = Buffer.from(await response.arrayBuffer());
  const page = JSON.parse(body.toString('utf8')) as { count: number; results: unknown[] };
  return { source: { url, offset }, count: page.count, records: page.results, limit, body };
}

describe('a resumed full run', () => {
  it('replays an image page staged after a collection reading that held its records (no body of its own)', async () => {
    service = await startFixtureService();
    dir = await tempDir();
    const staging = join(dir, 'staging');
    const identity = { source_url: service.listUrl, page_size: 1, started_at: new Date().toISOString() };
    const first = await batchOf(`${service.url}/api/images/?limit=1&offset=0`, 0, 1);
    const cid = (first.records[0] as { collection_id: number }).collection_id;
    const own = await batchOf(`${service.url}/api/collections/${cid}/images/?limit=1000&offset=0`, 0, 1000);

    // What an earlier process left: the collection's list, then (a page fetched again once its file was found broken)
    // the image list's page at offset 0, whose record the index already held: no body staged.
    const earlier = await Checkpoint.open(staging, identity);
    const index = new RecordIndex();
    const cache = new PageCache(earlier);
    index.add(
      await savePage(earlier, index, cache, { type: 'collection-page', collection: cid, attempt: 1 }, own, 1000),
    );
    const page = await savePage(earlier, index, cache, { type: 'page', pass: 1 }, first, 1);
    expect(page.file).toBeNull(); // guards the test: nothing new in it
    index.add(page);
    await earlier.close();

    const checkpoint = await Checkpoint.open(staging, identity);
    try {
      const collected = await collect({ baseUrl: service.url, pageSize: 1, concurrency: 2 }, checkpoint);
      expect(collected.index.received).toBe(collected.expected);
      expect(collected.missing).toBe(0);
    } finally {
      await checkpoint.remove();
    }
  });
});

describe('a resumed run whose pass an earlier process ended', () => {
  it('keeps the records that pass skipped: counted missing, their offsets in the stats', async () => {
    service = await startFixtureService({ collectionEndpoints: false });
    dir = await tempDir();
    const staging = join(dir, 'staging');
    const identity = { source_url: service.listUrl, page_size: 1000, started_at: new Date().toISOString() };
    const whole = await batchOf(`${service.url}/api/images/?limit=1000&offset=0`, 0, 1000);
    // What an earlier process left: the pass's one page, one record of whose range failed alone (skipped: the page
    // as staged holds the others; the count is evened by a record deleted after it was read), then the pass's end.
    const skipped = 3;
    const records = whole.records.filter((_, i) => i !== skipped);
    const body = Buffer.from(JSON.stringify({ count: records.length, next: null, previous: null, results: records }));
    const page = { ...whole, count: records.length, records, body, skipped: 1 };
    const earlier = await Checkpoint.open(staging, identity);
    const index = new RecordIndex();
    const place = { type: 'page' as const, pass: 1, skipped: [skipped] };
    index.add(await savePage(earlier, index, new PageCache(earlier), place, page, 1000));
    await earlier.endPass(1);
    await earlier.close();

    const checkpoint = await Checkpoint.open(staging, identity);
    try {
      const collected = await collect({ baseUrl: service.url, pageSize: 1000 }, checkpoint);
      expect(collected.index.received).toBe(collected.expected); // the count came out even
      expect(collected.stats.skippedOffsets).toEqual([skipped]);
      expect(collected.missing).toBe(1);
    } finally {
      await checkpoint.remove();
    }
  });
});
