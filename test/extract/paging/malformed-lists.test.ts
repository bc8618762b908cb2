/**
 * paginate over lists that misstate themselves or that the server cannot serve whole: it computes offsets from `count`
 * and the limit in the first `next`, never follows `next` itself, refuses links off the base host, stops an endless
 * chain at `count`, never advances by more than the page size asked for, and pages past records the server cannot
 * serve (a page whose every record was skipped is not the list's end). Each list is served by a real loopback server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newExtractStats, paginate } from '../../../src/extract/paging/paginate.js';
import type { PageBatch } from '../../../src/schema/row.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';
import type { HttpClientOptions } from '../../../src/extract/paging/http-client.js';
import type { RetryOptions } from '../../../src/extract/paging/retry.js';

const RETRY: RetryOptions = {
  attempts: 3,
  baseDelayMs: 1,
  maxDelayMs: 4,
  retryAfterFloorMs: 5,
  retryAfterMaxMs: 1_000,
};
const HTTP: HttpClientOptions = { maxBodyBytes: 1_000_000, headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000 };

let open: ScriptedServer | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

interface ListScript {
  /** Records in the list (ids). */
  ids: number[];
  /** Rewrites the page before it is sent. */
  edit?: (page: Record<string, unknown>, offset: number, origin: string) => void;
}

async function serveList(script: ListScript): Promise<ScriptedServer> {
  open = await startScriptedServer((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const count = script.ids.length;
    const link = (o: number) => `${origin}/api/images/?limit=${limit}&offset=${o}`;
    const page: Record<string, unknown> = {
      count,
      next: offset + limit >= count ? null : link(offset + limit),
      previous: offset <= 0 ? null : link(Math.max(offset - limit, 0)),
      results: script.ids.slice(offset, offset + limit).map((id) => ({ id })),
    };
    script.edit?.(page, offset, origin);
    sendJson(res, page);
  });
  return open;
}

async function collect(source: AsyncIterable<PageBatch>): Promise<PageBatch[]> {
  const pages: PageBatch[] = [];
  for await (const page of source) pages.push(page);
  return pages;
}

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);
const idsOf = (pages: PageBatch[]) => pages.flatMap((p) => p.records.map((r) => (r as { id: number }).id));
const PAGING = { pageSize: 10, concurrency: 2, retry: RETRY, http: HTTP };

describe('lists that misstate themselves across pages', () => {
  it(
    '`next` looping back to the first page is not followed: every page is asked for ' + 'once, in offset order',
    async () => {
      const s = await serveList({
        ids: range(30),
        edit: (page, _offset, origin) => (page['next'] = `${origin}/api/images/?limit=10&offset=0`),
      });
      const pages = await collect(paginate({ baseUrl: s.origin, ...PAGING }));
      expect(idsOf(pages)).toEqual(range(30));
      expect([...s.requests].sort()).toEqual([
        '/api/images/?limit=10&offset=0',
        '/api/images/?limit=10&offset=10',
        '/api/images/?limit=10&offset=20',
      ]);
    },
  );

  it('an endless chain of `next` past `count` stops at `count`', async () => {
    // The server keeps linking onwards and inventing records past the 30 it counts.
    const s = await serveList({
      ids: range(30),
      edit: (page, offset, origin) => {
        page['next'] = `${origin}/api/images/?limit=10&offset=${offset + 10}`;
        if (offset >= 30) page['results'] = range(10, 1000 + offset).map((id) => ({ id }));
      },
    });
    const pages = await collect(paginate({ baseUrl: s.origin, ...PAGING }));
    expect(idsOf(pages)).toEqual(range(30));
    expect(s.requests).toHaveLength(3);
  });

  it.each([
    ['negative', -3, /\(count: Too small: expected number to be >=0\) after 3 attempts$/],
    ['string', '30', /\(count: Invalid input: expected number, received string\) after 3 attempts$/],
  ])(
    'a %s `count` on the first page fails the run with a one-line error naming the page',
    async (_kind, count, reason) => {
      const s = await serveList({ ids: range(30), edit: (page) => (page['count'] = count) });
      const run = collect(paginate({ baseUrl: s.origin, ...PAGING }));
      await expect(run).rejects.toThrow(
        new RegExp(
          `^extract: GET ${s.origin}/api/images/\\?limit=10&offset=0 returned a page without a ` +
            `valid envelope ${reason.source}`,
        ),
      );
      // The first page was tried three times (the second page, asked for at once, fails the same way).
      expect(s.requests.filter((r) => r.endsWith('offset=0'))).toHaveLength(3);
    },
  );

  it('a negative `count` on a later page fails the run naming that page', async () => {
    const s = await serveList({
      ids: range(30),
      edit: (page, offset) => {
        if (offset === 20) page['count'] = -1;
      },
    });
    await expect(collect(paginate({ baseUrl: s.origin, ...PAGING }))).rejects.toThrow(
      `extract: GET ${s.origin}/api/images/?limit=10&offset=20 returned a page without a ` +
        `valid envelope (count: Too small: expected number to be >=0) after 3 attempts`,
    );
  });

  it.each([
    ['a cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['a private network address', () => 'http://10.0.0.1/api/images/?limit=10&offset=20', '10.0.0.1'],
    [
      'the same machine under another name',
      (origin: string) => `${origin.replace('127.0.0.1', 'localhost')}/api/images/?limit=10&offset=20`,
      'localhost:',
    ],
    ['another port of the same address', () => 'http://127.0.0.1:1/api/images/?limit=10&offset=20', '127.0.0.1:1'],
    ['IPv6 loopback', () => 'http://[::1]/api/images/?limit=10&offset=20', '[::1]'],
    [
      'a host hidden behind userinfo',
      (origin: string) => `http://${origin.slice('http://'.length)}@evil.example/api/images/?limit=10&offset=20`,
      'evil.example',
    ],
    ['a javascript: URL', () => 'javascript:alert(1)', ''],
  ])('`next` pointing to %s is refused with a one-line error naming the page', async (_what, link, host) => {
    const s = await serveList({
      ids: range(30),
      edit: (page, offset, origin) => {
        if (offset === 10) page['next'] = link(origin);
      },
    });
    const run = collect(paginate({ baseUrl: s.origin, ...PAGING }));
    await expect(run).rejects.toThrow(
      `extract: GET ${s.origin}/api/images/?limit=10&offset=10 returned a link to another host (${host}`,
    );
    expect(s.requests).not.toContain('/latest/meta-data/');
  });

  it('reports what it saw of a hostile `count` in its stats', async () => {
    const s = await serveList({
      ids: range(30),
      edit: (page, offset) => {
        if (offset === 10) page['count'] = 25;
      },
    });
    const stats = newExtractStats();
    const pages = await collect(paginate({ baseUrl: s.origin, ...PAGING, concurrency: 1 }, stats));
    expect(idsOf(pages)).toEqual(range(30));
    expect([stats.countAtStart, stats.countAtEnd]).toEqual([30, 30]);
  });
});

describe('paging past records the server cannot serve', () => {
  let server: ScriptedServer | undefined;
  /** Headers of the 500s served by serveList. */
  let retryAfter: Record<string, string> = {};
  afterEach(async () => {
    await server?.close();
    server = undefined;
    retryAfter = {};
  });

  const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);
  const idsOf = (pages: PageBatch[]) => pages.flatMap((p) => p.records.map((r) => (r as { id: number }).id));

  async function collect(source: AsyncIterable<PageBatch>): Promise<PageBatch[]> {
    const pages: PageBatch[] = [];
    for await (const page of source) pages.push(page);
    return pages;
  }

  /** A DRF-like list of ids 1..n whose ranges touching a `poisoned` offset answer Django's HTML 500. */
  async function serveList(
    n: number,
    poisoned: (offset: number) => boolean,
    edit?: (page: Record<string, unknown>, offset: number, limit: number, origin: string) => void,
    orphan: (offset: number) => boolean = () => false,
  ) {
    server = await startScriptedServer((req, res, origin) => {
      const url = new URL(req.url ?? '/', origin);
      const limit = Number(url.searchParams.get('limit'));
      const offset = Number(url.searchParams.get('offset'));
      if (range(limit, offset).some((o) => o < n && poisoned(o))) {
        res.writeHead(500, { 'content-type': 'text/html', ...retryAfter });
        res.end('<h1>Server Error (500)</h1>');
        return;
      }
      const link = (o: number) => `${origin}/api/images/?limit=${limit}&offset=${o}`;
      const page: Record<string, unknown> = {
        count: n,
        next: offset + limit >= n ? null : link(offset + limit),
        previous: offset <= 0 ? null : link(Math.max(offset - limit, 0)),
        results: range(n)
          .slice(offset, offset + limit)
          .filter((id) => !orphan(id - 1))
          .map((id) => ({ id })),
      };
      edit?.(page, offset, limit, origin);
      sendJson(res, page);
    });
    return server;
  }

  const options = (baseUrl: string, concurrency = 1) => ({
    baseUrl,
    pageSize: 10,
    concurrency,
    retry: { attempts: 1, baseDelayMs: 1 },
  });

  describe('paging past records the server cannot serve', () => {
    it('does not count a page whose every record was skipped as an empty page ending the list', async () => {
      // 20..29 and 50..59 are served empty (orphans: a short page before the end); 30..49 answer 500 whatever the range
      const s = await serveList(
        100,
        (o) => o >= 30 && o < 50,
        undefined,
        (o) => (o >= 20 && o < 30) || (o >= 50 && o < 60),
      );
      const stats = newExtractStats();
      const pages = await collect(paginate(options(s.origin), stats));
      expect(stats.skippedOffsets.sort((a, b) => a - b)).toEqual(range(20, 30));
      expect(idsOf(pages)).toEqual([...range(20), ...range(40, 61)]);
    });

    it('stops with an error, not as at the list end, after three pages whose records were all skipped', async () => {
      // offsets 20..69 (five whole pages) answer 500 however they are asked for; 70..99 are served
      const s = await serveList(100, (o) => o >= 20 && o < 70);
      await expect(collect(paginate(options(s.origin)))).rejects.toThrow(
        /offset=20 answered 500 for each of its records, and so did the 2 pages after it: the service is failing/,
      );
      // nothing past the page in flight when the third came back (but the pages of no record that tell a bad record
      // from an outage before a page is split, at an offset past any list)
      const offsets = s.requests.map((r) => Number(new URL(r, s.origin).searchParams.get('offset')));
      const probes = offsets.filter((o) => o === 2_147_483_647);
      expect(probes.length).toBeGreaterThan(0);
      expect(Math.max(...offsets.filter((o) => o !== 2_147_483_647))).toBeLessThan(60);
    });
  });

  describe('the page of no record asked before a failing page is split', () => {
    it('counts as a request, not as a page of the list', async () => {
      const s = await serveList(30, (o) => o === 15);
      const stats = newExtractStats();
      const pages = await collect(paginate(options(s.origin), stats));
      expect(stats.skippedOffsets).toEqual([15]);
      expect(idsOf(pages)).toEqual(range(30).filter((id) => id !== 16)); // id 16 is at offset 15
      const asked = s.requests.map((r) => new URL(r, s.origin).searchParams);
      const isProbe = (q: URLSearchParams) => q.get('offset') === '2147483647';
      const failed = (q: URLSearchParams) => range(Number(q.get('limit')), Number(q.get('offset'))).includes(15);
      expect(asked.filter(isProbe)).toHaveLength(1);
      expect(stats.requests).toBe(asked.length);
      expect(stats.pagesFetched).toBe(asked.filter((q) => !isProbe(q) && !failed(q)).length);
    });
  });

  describe('the page size a link states', () => {
    it('never advances by more than the page size asked for, whatever the next link says', async () => {
      const s = await serveList(
        40,
        () => false,
        (page, offset, limit, origin) => {
          if (page['next'] !== null)
            page['next'] = `${origin}/api/images/?limit=${limit * 2}&offset=${offset + limit * 2}`;
        },
      );
      const pages = await collect(paginate(options(s.origin)));
      expect(idsOf(pages)).toEqual(range(40));
    });
  });

  describe('a 500 asking to wait longer than allowed', () => {
    it('fails the page as a 429 would, instead of splitting it and skipping its records at once', async () => {
      retryAfter = { 'retry-after': '3600' };
      const s = await serveList(30, (o) => o >= 10 && o < 20);
      const stats = newExtractStats();
      await expect(collect(paginate({ ...options(s.origin), retry: { attempts: 3 } }, stats))).rejects.toThrow(
        /offset=10 returned 500; retry-after 3600 s is longer than the 120 s allowed$/,
      );
      expect(stats.skippedOffsets).toEqual([]);
      expect(s.requests.filter((r) => r.includes('offset=1')).length).toBeLessThan(3);
    });
  });
});
