/** Review of the paging layer: pages the server could not serve, and links that misstate the page size. */
import { afterEach, describe, expect, it } from 'vitest';
import { newExtractStats, paginate } from '../../../src/extract/paging/paginate.js';
import type { PageBatch } from '../../../src/schema/row.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

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
