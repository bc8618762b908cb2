import type { Page } from '../schema/image-schema.js';
import type { PageBatch } from '../schema/row.js';
import { ExtractError } from './extract-error.js';
import type { ExtractEvent } from './extract-events.js';
import { HttpClient, type HttpClientOptions } from './http-client.js';
import { limitOfLink, listUrlOf, pageUrl } from './page-url.js';
import { withRetry, type RetryOptions } from './retry.js';
import { isSameHost } from './same-host.js';

/** Where and how to page the list. */
export interface PaginateOptions {
  /** The service's base URL; default `https://neurovault.org`. */
  baseUrl?: string;
  /** Records asked for per page; default 100 (the server caps it at 1000). */
  pageSize?: number;
  /** Pages in flight at once; default 2 (half the real service's four workers). */
  concurrency?: number;
  /** HTTP client settings; defaults as HttpClientOptions says. */
  http?: HttpClientOptions;
  /** Retry settings; defaults as RetryOptions says. */
  retry?: RetryOptions;
  /** Cancels the run; default none. */
  signal?: AbortSignal;
  /** Receives progress events; default none. */
  onEvent?: (event: ExtractEvent) => void;
}

/** What paging saw, filled in while it runs. */
export interface ExtractStats {
  /** `count` reported by the first page. */
  countAtStart: number;
  /** `count` reported by the last page fetched. */
  countAtEnd: number;
  /** Pages fetched. */
  pagesFetched: number;
  /** Failed attempts that were retried. */
  retries: number;
  /** The page size the server applied. */
  pageSize: number;
}

type Settled = { ok: true; page: Page; url: string } | { ok: false; error: unknown };

/**
 * Streams every page of `/api/images/` in offset order, fetching up to `concurrency` pages at once.
 * Reads `count` from the first page, advances by the server's effective limit (never by a short page's length),
 * and keeps going while the list reports more records; the consumer's pace bounds what is buffered.
 */
export async function* paginate(options: PaginateOptions = {}, stats: ExtractStats = newExtractStats()): AsyncIterable<PageBatch> {
  const listUrl = listUrlOf(options.baseUrl ?? 'https://neurovault.org');
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const client = new HttpClient(listUrl, { connections: concurrency + 1, ...options.http });
  const aborter = new AbortController();
  const onAbort = () => aborter.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const fetchPage = async (url: string): Promise<Page> => {
    const { page } = await withRetry(
      () => client.getPage(url, aborter.signal),
      options.retry,
      (n) => {
        stats.retries++;
        options.onEvent?.({ type: 'retry', url, attempt: n.attempt, delayMs: n.delayMs, reason: n.error.reason });
      },
      aborter.signal,
    );
    for (const link of [page.next, page.previous]) checkLink(url, link, listUrl);
    stats.pagesFetched++;
    return page;
  };

  try {
    const firstUrl = pageUrl(listUrl, options.pageSize ?? 100, 0);
    const first = await fetchPage(firstUrl);
    const limit = limitOfLink(first.next) ?? limitOfLink(first.previous) ?? Math.max(first.results.length, 1);
    stats.countAtStart = stats.countAtEnd = first.count;
    stats.pageSize = limit;
    let maxCount = first.count;
    options.onEvent?.({ type: 'page', url: firstUrl, offset: 0, records: first.results.length, count: first.count });
    yield { source: { url: firstUrl, offset: 0 }, count: first.count, records: first.results };
    if (first.next === null) return;

    const window = new Map<number, Promise<Settled>>();
    const maxBuffered = concurrency * 2;
    let running = 0;
    let nextOffset = limit;
    let headOffset = limit;
    let wake: () => void = () => undefined;
    const start = (offset: number) => {
      running++;
      const url = pageUrl(listUrl, limit, offset);
      const settled = fetchPage(url).then(
        (page): Settled => ({ ok: true, page, url }),
        (error): Settled => ({ ok: false, error }),
      );
      window.set(offset, settled.finally(() => { running--; wake(); }));
    };
    for (;;) {
      while (running < concurrency && window.size < maxBuffered && nextOffset < maxCount) {
        start(nextOffset);
        nextOffset += limit;
      }
      const head = window.get(headOffset);
      if (head === undefined) return;
      const woken = new Promise<undefined>((resolve) => (wake = () => resolve(undefined)));
      const settled = await Promise.race([head, woken]);
      if (settled === undefined) continue; // another page finished: refill the window
      window.delete(headOffset);
      if (!settled.ok) throw settled.error;
      const { page, url } = settled;
      stats.countAtEnd = page.count;
      maxCount = Math.max(maxCount, page.count);
      if (page.results.length === 0 && page.next === null) maxCount = Math.min(maxCount, headOffset);
      options.onEvent?.({ type: 'page', url, offset: headOffset, records: page.results.length, count: page.count });
      yield { source: { url, offset: headOffset }, count: page.count, records: page.results };
      headOffset += limit;
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    aborter.abort();
    await client.close().catch(() => undefined);
  }
}

/** Fresh, all-zero extraction stats. */
export function newExtractStats(): ExtractStats {
  return { countAtStart: 0, countAtEnd: 0, pagesFetched: 0, retries: 0, pageSize: 0 };
}

function checkLink(pageUrl: string, link: string | null, listUrl: URL): void {
  if (link === null) return;
  let target: URL;
  try {
    target = new URL(link);
  } catch {
    throw new ExtractError('BAD_BODY', pageUrl, `returned a link that is not a URL (${JSON.stringify(link.slice(0, 200))})`, false);
  }
  if (!isSameHost(target, listUrl)) {
    throw new ExtractError('FOREIGN_LINK', pageUrl, `returned a link to another host (${target.host}); refusing to follow it`, false);
  }
}
