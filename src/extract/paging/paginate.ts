/**
 * Paging: reads a list page by page with limit and offset, a bounded number of pages in flight, retries and the checks
 * each page must pass. `paginate` is the room's entry; the rest of extract/paging is the client, the retry policy and
 * the pieces of a page.
 */
import type { PageBatch } from '../../schema/row.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import type { ExtractEvent } from './extract-events.js';
import { newExtractStats, type ExtractStats } from './extract-stats.js';
import { fetchListPage, type ListRequests } from './fetch-list-page.js';
import { fetchRange, splitFailedRange } from './fetch-range.js';
import { HttpClient, type HttpClientOptions } from './http-client.js';
import { limitOfLink, listUrlOf, pageUrl } from './page-url.js';
import { PageWindow } from './page-window.js';
import type { RetryOptions } from './retry.js';
import { DEFAULT_BASE_URL, DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE } from '../defaults.js';
import { ExtractError } from './extract-error.js';

/** Pages in a row whose every record the server failed to serve before the pass stops: the service is failing. */
const MAX_UNSERVED_PAGES = 3;

export { newExtractStats, type ExtractStats } from './extract-stats.js';

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
  const aborter = new AbortController();
  const lists = listRequests(options, stats, aborter.signal, target);
  const { client, adaptive } = lists;
  const onAbort = () => aborter.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) aborter.abort();
  const window = new PageWindow(adaptive);
  try {
    let cursor: Cursor | undefined;
    if (resume === undefined) cursor = yield* firstPage(lists, window, target?.countHint ?? Infinity);
    else {
      stats.countAtStart = stats.countAtEnd = resume.count;
      cursor = { limit: resume.limit, maxCount: resume.count, nextOffset: 0 };
    }
    if (cursor === undefined) return;
    stats.pageSize = cursor.limit;
    yield* pagesAfter(lists, window, cursor, resume?.done ?? new Set<number>());
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    aborter.abort();
    if (target?.client === undefined) await client.close().catch(() => undefined);
  }
}

/** What every request of a paging shares: the list, its client (the target's, or one of its own) and its limits. */
function listRequests(
  options: PaginateOptions,
  stats: ExtractStats,
  signal: AbortSignal,
  target: ListTarget | undefined,
): ListRequests {
  const listUrl = target?.url ?? listUrlOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const adaptive = new AdaptiveLimit(Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY));
  const client = target?.client ?? new HttpClient(listUrl, { connections: adaptive.max + 1, ...options.http });
  return {
    listUrl,
    client,
    adaptive,
    signal,
    stats,
    answers: target?.answers,
    retry: options.retry,
    onEvent: options.onEvent,
    maxCount: options.maxCount ?? 100_000_000,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
  };
}

/** Where paging goes on from: the server's page size, the `count` to page up to, and the next offset to fetch. */
interface Cursor {
  limit: number;
  maxCount: number;
  nextOffset: number;
}

/**
 * Yields the list's first page, and returns where paging goes on from (undefined when nothing follows it).
 * The pages after the first are asked for at once, at the page size asked for, while below `countHint`: the server
 * applies it unless it caps it (then they are dropped and paging goes on at the server's size). Saves a round trip on
 * every run.
 */
async function* firstPage(
  lists: ListRequests,
  window: PageWindow,
  countHint: number,
): AsyncGenerator<PageBatch, Cursor | undefined> {
  const asked = lists.pageSize;
  const firstUrl = pageUrl(lists.listUrl, asked, 0);
  const fetched = fetchListPage(lists, firstUrl);
  for (let k = 1; k < lists.adaptive.max && k * asked < countHint; k++)
    window.start(k * asked, (offset) => fetchRange(lists, offset, asked));
  const { batch, limit, more } = await firstBatch(lists, firstUrl, fetched);
  lists.stats.countAtStart = batch.count;
  const { url } = batch.source;
  lists.onEvent?.({ type: 'page', url, offset: 0, records: batch.records.length, count: batch.count });
  yield batch;
  if (!more) return undefined;
  if (limit === asked) return { limit, maxCount: batch.count, nextOffset: (window.last ?? 0) + limit };
  window.drop(); // the server pages at another size: drop the guesses
  return { limit, maxCount: batch.count, nextOffset: limit };
}

/**
 * The first page (`fetched` from `url`) as a batch, the page size the server applies and whether more follows it.
 * When the server cannot serve all its records, it is split as any such page is (splitFailedRange), and paging goes on
 * at the page size asked for (the server's own is unknown: a split asks for less) up to the largest `count` served.
 * Throws the fetch's error when it is another, when the service serves no page (an outage), or when no part of the
 * page was served (no `count` to page up to).
 */
async function firstBatch(
  lists: ListRequests,
  url: string,
  fetched: ReturnType<typeof fetchListPage>,
): Promise<{ batch: PageBatch; limit: number; more: boolean }> {
  const asked = lists.pageSize;
  let served: Awaited<typeof fetched>;
  try {
    served = await fetched;
  } catch (err) {
    const batch = await splitFailedRange(lists, 0, asked, err);
    if (batch.records.length === 0) throw err;
    return { batch, limit: asked, more: batch.count > asked };
  }
  const { page, bytes, text } = served;
  // The server applies at most the limit asked for: a link stating more would make paging step over records.
  const linked = limitOfLink(page.next) ?? limitOfLink(page.previous);
  const limit = linked === undefined ? Math.max(page.results.length, asked) : Math.min(linked, asked);
  const batch = {
    source: { url, offset: 0 },
    count: page.count,
    records: page.results,
    limit,
    body: bytes,
    bodyText: text,
  };
  return { batch, limit, more: page.next !== null };
}

/**
 * Yields the pages from `cursor` on in offset order, keeping the window full and skipping the offsets `done`, until
 * the list's end: its largest `count`, or an empty page with no next link, or three empty pages in a row (nothing lies
 * beyond, whatever `count` claims). A page whose every record was skipped is not empty but unserved: it breaks a run
 * of empty pages, and three unserved pages in a row stop the pass with an error (an outage is not the list's end).
 */
async function* pagesAfter(
  lists: ListRequests,
  window: PageWindow,
  cursor: Cursor,
  done: ReadonlySet<number>,
): AsyncGenerator<PageBatch, void> {
  const { limit } = cursor;
  let { maxCount, nextOffset } = cursor;
  let emptyRun = 0;
  let unservedRun: string[] = [];
  const skipDone = () => {
    while (done.has(nextOffset)) nextOffset += limit;
  };
  skipDone();
  for (;;) {
    while (window.hasRoom() && nextOffset < maxCount) {
      window.start(nextOffset, (offset) => fetchRange(lists, offset, limit));
      nextOffset += limit;
      skipDone();
    }
    const headOffset = window.head;
    if (headOffset === undefined) {
      // None held, yet pages remain: the pages dropped after the first (the server pages at another size) still hold
      // the room, the window having shrunk meanwhile (a 429). Wait for one to settle, then start the next.
      if (nextOffset < maxCount && window.busy) {
        await window.settled();
        continue;
      }
      return;
    }
    const batch = await window.takeHead();
    if (batch === undefined) continue;
    maxCount = Math.max(maxCount, batch.count);
    // A page whose every record was skipped (each answered 500 alone) is no sign of the list's end, but of an outage.
    const unserved = batch.records.length === 0 && (batch.skipped ?? 0) > 0;
    unservedRun = unserved ? [...unservedRun, batch.source.url] : [];
    if (unservedRun.length >= MAX_UNSERVED_PAGES) throw unservedError(unservedRun);
    emptyRun = batch.records.length === 0 && !unserved ? emptyRun + 1 : 0;
    if (batch.atEnd === true) maxCount = Math.min(maxCount, headOffset);
    else if (emptyRun >= 3) maxCount = Math.min(maxCount, headOffset + limit);
    const { url } = batch.source;
    lists.onEvent?.({ type: 'page', url, offset: headOffset, records: batch.records.length, count: batch.count });
    yield batch;
  }
}

/** The error that stops a pass after pages in a row whose every record answered 500, naming the first of them. */
function unservedError(urls: readonly string[]): ExtractError {
  const reason =
    `answered 500 for each of its records, and so did the ${urls.length - 1} pages after it: the service is ` +
    'failing; stopping rather than skipping the rest of the list';
  const url = urls[0]!;
  return new ExtractError({ code: 'HTTP_STATUS', kind: 'status', url, reason, status: 500, retryable: false });
}
