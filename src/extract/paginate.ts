import type { PageBatch } from '../schema/row.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { ExtractError } from './extract-error.js';
import type { ExtractEvent } from './extract-events.js';
import { HttpClient, type FetchedPage, type HttpClientOptions } from './http-client.js';
import { joinPageBodies } from './join-page-bodies.js';
import { limitOfLink, listUrlOf, pageUrl } from './page-url.js';
import { withRetry, type RetryOptions } from './retry.js';
import { isSameHost } from './same-host.js';
import { DEFAULT_BASE_URL, DEFAULT_PAGE_SIZE } from './defaults.js';

/** Where and how to page the list. */
export interface PaginateOptions {
  /** The service's base URL; default `https://neurovault.org`. */
  baseUrl?: string;
  /** Records asked for per page; default DEFAULT_PAGE_SIZE, 1,000 (the server caps it at 1000). */
  pageSize?: number;
  /**
   * Most pages in flight at once; default 2 (half the real service's four workers). Halved on 429s and errors, regained
   * slowly.
   */
  concurrency?: number;
  /** HTTP client settings; defaults as HttpClientOptions says. */
  http?: HttpClientOptions;
  /** Retry settings; defaults as RetryOptions says. */
  retry?: RetryOptions;
  /** Cancels the run; default none. */
  signal?: AbortSignal;
  /** Receives progress events; default none. */
  onEvent?: (event: ExtractEvent) => void;
  /** Largest `count` believed; a page claiming more fails the run (NeuroVault lists ~600,000). Default 100,000,000. */
  maxCount?: number;
}

/** Where a resumed pass stands: what an earlier process already fetched. */
export interface PaginateResume {
  /** The page size the server applied, from the pass's first page. */
  limit: number;
  /** The largest `count` seen so far in the pass. */
  count: number;
  /** Offsets already fetched in this pass; they are not fetched again. */
  done: ReadonlySet<number>;
}

/** Where a pass stands after the pages it staged (an earlier process's): undefined when it staged none. */
export function resumeOf(
  staged: readonly { limit: number; count: number; offset: number }[],
): PaginateResume | undefined {
  if (staged.length === 0) return undefined;
  return {
    limit: staged[0]!.limit,
    count: Math.max(...staged.map((p) => p.count)),
    done: new Set(staged.map((p) => p.offset)),
  };
}

/** Which list to page when it is not the image list of `baseUrl`, and what is known of it. */
export interface ListTarget {
  /** The list's URL (same host as `baseUrl`). */
  url: URL;
  /** Records the list is believed to hold: the pages after the first are asked for at once only below it. */
  countHint?: number;
  /** A client to reuse, made for the same host; default a new one, closed after. */
  client?: HttpClient;
  /**
   * Statuses of the list that are the service's answer when DRF's JSON says them (a collection's list: 403 private,
   * 404 deleted), thrown and not retried; in any other body they are retried. Default none.
   */
  answers?: readonly number[];
}

/** What paging saw, filled in while it runs. */
export interface ExtractStats {
  /** `count` reported by the first page. */
  countAtStart: number;
  /** `count` reported by the last page fetched. */
  countAtEnd: number;
  /** Smallest and largest `count` seen. */
  countMin: number;
  countMax: number;
  /** Pages fetched (requests that returned a page). */
  pagesFetched: number;
  /** Requests sent, failed attempts included. */
  requests: number;
  /** Failed attempts that were retried. */
  retries: number;
  /** The page size the server applied. */
  pageSize: number;
  /** Offsets of single records the server could not serve even alone (skipped after bisecting a failing page). */
  skippedOffsets: number[];
}

/** Fresh, all-zero extraction stats. */
export function newExtractStats(): ExtractStats {
  return {
    countAtStart: 0,
    countAtEnd: 0,
    countMin: Infinity,
    countMax: 0,
    pagesFetched: 0,
    requests: 0,
    retries: 0,
    pageSize: 0,
    skippedOffsets: [],
  };
}

type Settled = { ok: true; batch: PageBatch } | { ok: false; error: unknown };

/**
 * Streams every page of `/api/images/` (or of the list `target` names) in offset order, fetching up to `concurrency`
 * pages at once.
 * Reads `count` from the first page, advances by the server's effective limit (never by a short page's length),
 * and keeps going while the list reports more records; the consumer's pace bounds what is buffered.
 * A page that keeps answering 500 is split in halves down to single records, and only a record that fails alone is
 * skipped.
 */
export async function* paginate(
  options: PaginateOptions = {},
  stats: ExtractStats = newExtractStats(),
  resume?: PaginateResume,
  target?: ListTarget,
): AsyncIterable<PageBatch> {
  const listUrl = target?.url ?? listUrlOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const adaptive = new AdaptiveLimit(Math.max(1, options.concurrency ?? 2));
  const client = target?.client ?? new HttpClient(listUrl, { connections: adaptive.max + 1, ...options.http });
  const aborter = new AbortController();
  const onAbort = () => aborter.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) aborter.abort();

  const fetchOne = async (url: string): Promise<FetchedPage> => {
    const fetched = await withRetry(
      () => {
        stats.requests++;
        return client.getPage(url, aborter.signal, target?.answers);
      },
      options.retry,
      (n) => {
        stats.retries++;
        adaptive.failed(n.error.status === 429);
        options.onEvent?.({ type: 'retry', url, attempt: n.attempt, delayMs: n.delayMs, reason: n.error.reason });
      },
      aborter.signal,
    );
    for (const link of [fetched.page.next, fetched.page.previous]) checkLink(url, link, listUrl);
    checkCount(
      url,
      fetched.page.count,
      stats.countAtStart,
      options.maxCount ?? 100_000_000,
      options.pageSize ?? DEFAULT_PAGE_SIZE,
    );
    adaptive.succeeded();
    stats.pagesFetched++;
    const { count } = fetched.page;
    stats.countAtEnd = count;
    stats.countMin = Math.min(stats.countMin, count);
    stats.countMax = Math.max(stats.countMax, count);
    return fetched;
  };

  /** Fetches `limit` records at `offset`, splitting the range while the server answers 500. */
  const fetchRange = async (offset: number, limit: number): Promise<PageBatch> => {
    const url = pageUrl(listUrl, limit, offset);
    try {
      const { page, bytes } = await fetchOne(url);
      const atEnd = page.results.length === 0 && page.next === null;
      return { source: { url, offset }, count: page.count, records: page.results, limit, body: bytes, atEnd };
    } catch (err) {
      if (!(err instanceof ExtractError) || err.status !== 500 || aborter.signal.aborted) throw err;
      if (limit === 1) {
        stats.skippedOffsets.push(offset);
        options.onEvent?.({ type: 'skip', url, offset, reason: err.reason });
        return { source: { url, offset }, count: stats.countAtEnd, records: [], limit };
      }
      const half = Math.ceil(limit / 2);
      const [left, right] = await Promise.all([fetchRange(offset, half), fetchRange(offset + half, limit - half)]);
      const body = joinPageBodies(right.count, [left.body, right.body]);
      return { source: { url, offset }, count: right.count, records: [...left.records, ...right.records], limit, body };
    }
  };

  // A window of pages in flight, yielded in offset order.
  const window = new Map<number, Promise<Settled>>();
  let order: number[] = [];
  let running = 0;
  let emptyRun = 0;
  let wake: () => void = () => undefined;
  const asked = options.pageSize ?? DEFAULT_PAGE_SIZE;
  let limit = resume?.limit ?? asked;
  const start = (offset: number) => {
    running++;
    order.push(offset);
    const settled = fetchRange(offset, limit).then(
      (batch): Settled => ({ ok: true, batch }),
      (error): Settled => ({ ok: false, error }),
    );
    window.set(
      offset,
      settled.finally(() => {
        running--;
        wake();
      }),
    );
  };

  try {
    let maxCount: number;
    let nextOffset: number;
    if (resume === undefined) {
      // The pages after the first are asked for at once, at the page size asked for: the server applies it unless it
      // caps it (then they are dropped and paging goes on at the server's size). Saves a round trip on every run.
      const firstUrl = pageUrl(listUrl, asked, 0);
      const first = fetchOne(firstUrl);
      const hint = target?.countHint ?? Infinity;
      for (let k = 1; k < adaptive.max && k * asked < hint; k++) start(k * asked);
      const { page, bytes } = await first;
      limit = limitOfLink(page.next) ?? limitOfLink(page.previous) ?? Math.max(page.results.length, asked);
      stats.countAtStart = page.count;
      maxCount = page.count;
      options.onEvent?.({ type: 'page', url: firstUrl, offset: 0, records: page.results.length, count: page.count });
      yield { source: { url: firstUrl, offset: 0 }, count: page.count, records: page.results, limit, body: bytes };
      if (page.next === null) return;
      if (limit === asked) nextOffset = (order.at(-1) ?? 0) + limit;
      else {
        for (const offset of order) window.delete(offset); // the server pages at another size: drop the guesses
        order = [];
        nextOffset = limit;
      }
    } else {
      maxCount = resume.count;
      stats.countAtStart = stats.countAtEnd = resume.count;
      nextOffset = 0;
    }
    stats.pageSize = limit;
    const done = resume?.done ?? new Set<number>();
    const skipDone = () => {
      while (done.has(nextOffset)) nextOffset += limit;
    };
    skipDone();

    for (;;) {
      while (running < adaptive.current && window.size < adaptive.max * 2 && nextOffset < maxCount) {
        start(nextOffset);
        nextOffset += limit;
        skipDone();
      }
      const headOffset = order[0];
      if (headOffset === undefined) return;
      const head = window.get(headOffset)!;
      const woken = new Promise<undefined>((resolve) => (wake = () => resolve(undefined)));
      const settled = await Promise.race([head, woken]);
      if (settled === undefined) continue; // another page finished: refill the window
      window.delete(headOffset);
      order.shift();
      if (!settled.ok) throw settled.error;
      const { batch } = settled;
      maxCount = Math.max(maxCount, batch.count);
      // An empty page with no next link, or three empty pages in a row: nothing lies beyond, whatever `count` claims.
      emptyRun = batch.records.length === 0 ? emptyRun + 1 : 0;
      if (batch.atEnd === true) maxCount = Math.min(maxCount, headOffset);
      else if (emptyRun >= 3) maxCount = Math.min(maxCount, headOffset + limit);
      options.onEvent?.({
        type: 'page',
        url: batch.source.url,
        offset: headOffset,
        records: batch.records.length,
        count: batch.count,
      });
      yield batch;
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    aborter.abort();
    if (target?.client === undefined) await client.close().catch(() => undefined);
  }
}

/**
 * Refuses a `count` no real list has, or one that grew past twice the pass's first plus 100 pages: paging it would
 * never end.
 */
function checkCount(url: string, count: number, first: number, max: number, pageSize: number): void {
  if (count > max)
    throw new ExtractError({
      code: 'IMPLAUSIBLE_COUNT',
      url,
      reason: `reported count ${count}, more than the ${max} records any list is believed to hold`,
      retryable: false,
    });
  if (first > 0 && count > first * 2 + 100 * pageSize) {
    throw new ExtractError({
      code: 'IMPLAUSIBLE_COUNT',
      url,
      reason:
        `reported count ${count}, up from ${first} at the start of the pass: the list grows ` +
        `faster than it can be read`,
      retryable: false,
    });
  }
}

function checkLink(pageUrl: string, link: string | null, listUrl: URL): void {
  if (link === null) return;
  let target: URL;
  try {
    target = new URL(link);
  } catch {
    throw new ExtractError({
      code: 'BAD_BODY',
      url: pageUrl,
      reason: `returned a link that is not a URL (${JSON.stringify(link.slice(0, 200))})`,
      retryable: false,
    });
  }
  if (!isSameHost(target, listUrl)) {
    throw new ExtractError({
      code: 'FOREIGN_LINK',
      url: pageUrl,
      reason: `returned a link to another host (${target.host}); refusing to follow it`,
      retryable: false,
    });
  }
}
