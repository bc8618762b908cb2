import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { paginate, newExtractStats } from '../../../src/extract/paging/paginate.js';
import { isSameHost } from '../../../src/extract/paging/same-host.js';
import type { PageBatch } from '../../../src/schema/row.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

interface ListScript {
  /** Records in the list (ids). */
  ids: number[];
  /** The server's max limit. */
  maxLimit?: number;
  /** Ids dropped from results after counting (a short page). */
  orphans?: Set<number>;
  /** Runs when a page is requested, before it is built. */
  onRequest?: (offset: number) => void;
  /** Rewrites the page before it is sent. */
  edit?: (page: Record<string, unknown>, offset: number, origin: string) => void;
  /** Delay in ms before answering a page. */
  delay?: (offset: number) => number;
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serveList(script: ListScript): Promise<ScriptedServer> {
  server = await startScriptedServer((req, res: ServerResponse, origin) => {
    const url = new URL(req.url ?? '/', origin);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), script.maxLimit ?? 1000);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    script.onRequest?.(offset);
    const count = script.ids.length;
    const link = (o: number) => `${origin}/api/images/?limit=${limit}&offset=${o}`;
    const page: Record<string, unknown> = {
      count,
      next: offset + limit >= count ? null : link(offset + limit),
      previous: offset <= 0 ? null : link(Math.max(offset - limit, 0)),
      results: script.ids
        .slice(offset, offset + limit)
        .filter((id) => !script.orphans?.has(id))
        .map((id) => ({ id })),
    };
    script.edit?.(page, offset, origin);
    void sleep(script.delay?.(offset) ?? 0).then(() => sendJson(res, page));
  });
  return server;
}

async function collect(source: AsyncIterable<PageBatch>): Promise<PageBatch[]> {
  const pages: PageBatch[] = [];
  for await (const page of source) pages.push(page);
  return pages;
}

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);
const idsOf = (pages: PageBatch[]) => pages.flatMap((p) => p.records.map((r) => (r as { id: number }).id));

describe('paginate', () => {
  it('asks for the first pages at once, at the page size asked for', async () => {
    const s = await serveList({ ids: range(95), delay: (offset) => (offset === 0 ? 30 : 0) });
    const pages = await collect(paginate({ baseUrl: s.origin, pageSize: 10, concurrency: 4 }));
    expect(s.requests.slice(0, 4).sort()).toEqual(
      [0, 10, 20, 30].map((o) => `/api/images/?limit=10&offset=${o}`).sort(),
    );
    expect(idsOf(pages)).toEqual(range(95));
    expect(s.requests).toHaveLength(10); // no page twice
  });

  it(
    'drops the pages asked for at once when the server applies a smaller page size, and ' + 'pages at its size',
    async () => {
      const s = await serveList({ ids: range(25), maxLimit: 7 });
      const pages = await collect(paginate({ baseUrl: s.origin, pageSize: 10, concurrency: 3 }));
      expect(pages.map((p) => p.source.offset)).toEqual([0, 7, 14, 21]);
      expect(idsOf(pages)).toEqual(range(25));
    },
  );

  it('fetches every page in offset order at any concurrency', async () => {
    const s = await serveList({ ids: range(95), delay: (offset) => (offset * 7919) % 23 });
    const pages = await collect(paginate({ baseUrl: s.origin, pageSize: 10, concurrency: 4 }));
    expect(pages.map((p) => p.source.offset)).toEqual(range(10, 0).map((i) => i * 10));
    expect(idsOf(pages)).toEqual(range(95));
  });

  it('advances by the limit the server applied, not the one asked for', async () => {
    const s = await serveList({ ids: range(25), maxLimit: 7 });
    const stats = newExtractStats();
    const pages = await collect(paginate({ baseUrl: s.origin, pageSize: 1000, concurrency: 3 }, stats));
    expect(pages.map((p) => p.source.offset)).toEqual([0, 7, 14, 21]);
    expect(idsOf(pages)).toEqual(range(25));
    expect(stats.pageSize).toBe(7);
  });

  it('pages on at the limit the server applied while the pages guessed beside the first are in flight', async () => {
    // The first page is throttled once (the window halves), and the pages asked for beside it answer late: dropped,
    // they still hold the window's room when the first page comes back.
    let throttled = false;
    server = await startScriptedServer((req, res: ServerResponse, origin) => {
      const url = new URL(req.url ?? '/', origin);
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 10);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (offset === 0 && !throttled) {
        throttled = true;
        return sendJson(res, { detail: 'Request was throttled.' }, 429);
      }
      const link = (o: number) => `${origin}/api/images/?limit=${limit}&offset=${o}`;
      const page = {
        count: 60,
        next: offset + limit >= 60 ? null : link(offset + limit),
        previous: offset <= 0 ? null : link(Math.max(offset - limit, 0)),
        results: range(60)
          .slice(offset, offset + limit)
          .map((id) => ({ id })),
      };
      void sleep(url.searchParams.get('limit') === '20' && offset > 0 ? 600 : 0).then(() => sendJson(res, page));
    });
    const retry = { baseDelayMs: 1, retryAfterFloorMs: 1 };
    const pages = await collect(paginate({ baseUrl: server.origin, pageSize: 20, concurrency: 4, retry }));
    expect(idsOf(pages)).toEqual(range(60));
  });

  it('does not stop on a short page before the end', async () => {
    const s = await serveList({ ids: range(30), orphans: new Set([12, 13, 14]) });
    const pages = await collect(paginate({ baseUrl: s.origin, pageSize: 10, concurrency: 2 }));
    expect(pages.map((p) => p.records.length)).toEqual([10, 7, 10]);
    expect(idsOf(pages)).toEqual(range(30).filter((id) => id < 12 || id > 14));
  });

  it('keeps paging while the list grows', async () => {
    const ids = range(20);
    const s = await serveList({
      ids,
      onRequest: (offset) => {
        if (offset === 10 && ids.length === 20) ids.push(...range(15, 100));
      },
    });
    const stats = newExtractStats();
    const pages = await collect(paginate({ baseUrl: s.origin, pageSize: 10, concurrency: 1 }, stats));
    expect(idsOf(pages)).toEqual([...range(20), ...range(15, 100)]);
    expect([stats.countAtStart, stats.countAtEnd]).toEqual([20, 35]);
  });

  it('refuses a next link to another host with a one-line error naming the page', async () => {
    const s = await serveList({
      ids: range(30),
      edit: (page, offset) => {
        if (offset === 10) page['next'] = 'http://evil.example/api/images/?limit=10&offset=20';
      },
    });
    await expect(collect(paginate({ baseUrl: s.origin, pageSize: 10, concurrency: 1 }))).rejects.toThrow(
      `extract: GET ${s.origin}/api/images/?limit=10&offset=10 returned a link to another ` +
        `host (evil.example); refusing to follow it`,
    );
  });

  it('requests pages at /api/images/ below a base URL with a path prefix', async () => {
    const s = await serveList({ ids: range(3) });
    await collect(paginate({ baseUrl: `${s.origin}/mirror`, pageSize: 10, concurrency: 1 }));
    expect(s.requests).toEqual(['/mirror/api/images/?limit=10&offset=0']);
  });
});

describe('isSameHost', () => {
  it.each([
    ['http://neurovault.org/api/images/', 'https://neurovault.org/', true],
    ['https://NeuroVault.org/x', 'https://neurovault.org/', true],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000/', true],
    ['http://127.0.0.1:8001/', 'http://127.0.0.1:8000/', false],
    ['http://evil.org/', 'https://neurovault.org/', false],
    ['http://neurovault.org.evil.org/', 'https://neurovault.org/', false],
  ])('%s vs %s: %s', (a, b, same) => {
    expect(isSameHost(new URL(a), new URL(b))).toBe(same);
  });
});

describe('paginate against hostile counts', () => {
  const hostileLink = (origin: string, limit: number, o: number) => `${origin}/api/images/?limit=${limit}&offset=${o}`;
  const records = (offset: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: offset + i + 1 }));
  async function serveHostile(
    page: (offset: number, limit: number, origin: string) => Record<string, unknown>,
  ): Promise<ScriptedServer> {
    server = await startScriptedServer((req, res, origin) => {
      const url = new URL(req.url ?? '/', origin);
      sendJson(res, page(Number(url.searchParams.get('offset')), Number(url.searchParams.get('limit')), origin));
    });
    return server;
  }
  const options = (baseUrl: string) => ({
    baseUrl,
    pageSize: 10,
    concurrency: 2,
    retry: { attempts: 2, baseDelayMs: 1 },
  });

  it('refuses a count past any real list (10^15) on the first page', async () => {
    const s = await serveHostile((offset, limit, origin) => ({
      count: 1e15,
      next: hostileLink(origin, limit, offset + limit),
      previous: null,
      results: records(offset, 10),
    }));
    await expect(collect(paginate(options(s.origin)))).rejects.toThrow(
      /reported count 1000000000000000, more than the 100000000 records any list is believed to hold$/,
    );
    expect(s.requests.filter((r) => r.endsWith('offset=0'))).toHaveLength(1);
  });

  it('stops after three empty pages in a row, whatever a plausible count claims', async () => {
    const s = await serveHostile((offset, limit, origin) => ({
      count: 5_000_000,
      next: hostileLink(origin, limit, offset + limit),
      previous: null,
      results: offset < 30 ? records(offset, 10) : [],
    }));
    const pages = await collect(paginate(options(s.origin)));
    expect(idsOf(pages)).toEqual(range(30));
    expect(s.requests.length).toBeLessThan(12);
  });

  it('refuses a count that grows faster than the list can be read', async () => {
    const s = await serveHostile((offset, limit, origin) => ({
      count: offset + 3 * limit,
      next: hostileLink(origin, limit, offset + limit),
      previous: null,
      results: records(offset, 10),
    }));
    await expect(collect(paginate(options(s.origin)))).rejects.toThrow(
      /up from 30 at the start of the pass: the list grows faster than it can be read$/,
    );
    expect(s.requests.length).toBeLessThan(120);
  });
});
