import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { pageCollections } from '../../../src/extract/completeness/page-collections.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

let dir: string;
let server: ScriptedServer | undefined;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await removeDir(dir);
});

/** Requests the server had seen when it answered the list's first page (held back 50 ms). */
let seenAtFirstAnswer: number;

/** A collections list of `count` collections (ids 1…count, one image each), offset-paged as DRF does. */
async function serveCollections(count: number): Promise<ScriptedServer> {
  seenAtFirstAnswer = -1;
  server = await startScriptedServer((req, res: ServerResponse, origin) => {
    const url = new URL(req.url ?? '/', origin);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 1000);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const link = (o: number) => `${origin}/api/collections/?limit=${limit}&offset=${o}`;
    const ids = Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, i) => offset + i + 1);
    const page = {
      count,
      next: offset + limit >= count ? null : link(offset + limit),
      previous: offset <= 0 ? null : link(Math.max(offset - limit, 0)),
      results: ids.map((id) => ({ id, number_of_images: 1, modify_date: '2026-01-02T03:04:05.000006Z' })),
    };
    void sleep(offset === 0 ? 50 : 0).then(() => {
      if (offset === 0) seenAtFirstAnswer = server!.requests.length;
      sendJson(res, page);
    });
  });
  return server;
}

/** Reads the list as round `round` of a run with these options, into a fresh staging folder. */
async function read(s: ScriptedServer, options: { pageSize?: number; concurrency?: number }, believed?: number) {
  const identity = { source_url: `${s.origin}/api/images/`, page_size: 1000, started_at: new Date().toISOString() };
  const checkpoint = await Checkpoint.open(dir, identity);
  try {
    return await pageCollections({ baseUrl: s.origin, ...options }, checkpoint, 2, believed);
  } finally {
    await checkpoint.close();
  }
}

const urls = (limit: number, offsets: number[]) =>
  offsets.map((o) => `/api/collections/?limit=${limit}&offset=${o}`).sort();

describe('the collections list, read when its size is believed', () => {
  it('is asked for at once, in as many pages as the run fetches at a time', async () => {
    const s = await serveCollections(450);
    const listing = await read(s, { concurrency: 4 }, 450);
    expect([...s.requests].sort()).toEqual(urls(113, [0, 113, 226, 339]));
    expect(seenAtFirstAnswer).toBe(4); // all four were asked for before the first answered
    expect(listing.sizes.size).toBe(450);
    expect(listing.expected).toBe(450);
  });

  it('is read in one page first when nothing is believed (a service without the list answers one 404)', async () => {
    const s = await serveCollections(450);
    const listing = await read(s, { concurrency: 4 });
    expect(s.requests).toEqual(urls(1000, [0]));
    expect(listing.sizes.size).toBe(450);
  });

  it('keeps pages of at least 100 collections, and never larger than the run asks for', async () => {
    const small = await serveCollections(30);
    expect((await read(small, { concurrency: 4 }, 30)).sizes.size).toBe(30);
    expect(small.requests).toEqual(urls(100, [0]));
    await small.close();
    await removeDir(dir);
    dir = await tempDir();
    const capped = await serveCollections(450);
    expect((await read(capped, { concurrency: 4, pageSize: 50 }, 450)).sizes.size).toBe(450);
    expect([...capped.requests].sort()).toEqual(urls(50, [0, 50, 100, 150, 200, 250, 300, 350, 400]));
  });

  it('reads every collection when the list grew past what was believed', async () => {
    const s = await serveCollections(450);
    const listing = await read(s, { concurrency: 2 }, 200);
    expect([...s.requests].sort()).toEqual(urls(100, [0, 100, 200, 300, 400]));
    expect(seenAtFirstAnswer).toBe(2);
    expect(listing.sizes.size).toBe(450);
    expect(listing.expected).toBe(450);
  });
});

describe('the collections list, changed while it is paged', () => {
  it('forgets what it read before a collection went (the rest shifted back past a page read), reads it', async () => {
    // Collections 1…5, two a page; collection 1 is deleted once the first page is served: collection 3 moves to offset
    // 1, behind the page read, and the next page (offset 2) serves 4 and 5. Counted with 1, four ids met the count 4.
    const live = [1, 2, 3, 4, 5];
    server = await startScriptedServer((req, res: ServerResponse, origin) => {
      const url = new URL(req.url ?? '/', origin);
      const limit = Number(url.searchParams.get('limit'));
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const link = (o: number) => `${origin}/api/collections/?limit=${limit}&offset=${o}`;
      const count = live.length;
      sendJson(res, {
        count,
        next: offset + limit >= count ? null : link(offset + limit),
        previous: offset <= 0 ? null : link(Math.max(offset - limit, 0)),
        results: live
          .slice(offset, offset + limit)
          .map((id) => ({ id, number_of_images: 1, modify_date: '2026-01-02T03:04:05.000006Z' })),
      });
      if (offset === 0 && live[0] === 1) live.splice(0, 1);
    });
    const listing = await read(server, { pageSize: 2, concurrency: 1 });
    expect([...listing.sizes.keys()].sort()).toEqual([2, 3, 4, 5]);
    expect(listing.expected).toBe(4);
    expect(listing.passes).toBe(2);
    expect(new Set(listing.pages.flatMap((p) => p.ids))).toEqual(new Set([2, 3, 4, 5]));
  });
});
