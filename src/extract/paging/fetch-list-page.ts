/** One page of a list fetched with retries, checked, and counted: the single request of paginate's window. */
import type { AdaptiveLimit } from './adaptive-limit.js';
import { checkPage } from './check-page.js';
import type { ExtractEvent } from './extract-events.js';
import type { ExtractStats } from './extract-stats.js';
import type { FetchedPage, HttpClient } from './http-client.js';
import { withRetry, type RetryOptions } from './retry.js';

/** What every request of one paginate call shares. */
export interface ListRequests {
  /** The list's URL. */
  listUrl: URL;
  /** The client the requests go through. */
  client: HttpClient;
  /** Pages allowed in flight, told of each success and failure. */
  adaptive: AdaptiveLimit;
  /** Aborts every request of the call. */
  signal: AbortSignal;
  /** The call's stats, counted into. */
  stats: ExtractStats;
  /** Statuses that are the service's answer when DRF's JSON says them; default none. */
  answers?: readonly number[];
  /** Retry settings; defaults as RetryOptions says. */
  retry?: RetryOptions;
  /** Receives the retry and skip events; default none. */
  onEvent?: (event: ExtractEvent) => void;
  /** Largest `count` believed. */
  maxCount: number;
  /** The page size asked for. */
  pageSize: number;
}

/**
 * Fetches the page at `url`, retrying as `lists.retry` says, checks it, and counts it in the stats: as a page of the
 * list, or only as requests when it is a `probe` (a page of no record asked to tell a bad record from an outage).
 */
export async function fetchListPage(
  lists: ListRequests,
  url: string,
  { probe = false }: { probe?: boolean } = {},
): Promise<FetchedPage> {
  const { stats, adaptive } = lists;
  const fetched = await withRetry(
    () => {
      stats.requests++;
      return lists.client.getPage(url, lists.signal, lists.answers);
    },
    lists.retry,
    (n) => {
      stats.retries++;
      adaptive.failed(n.error.status === 429);
      lists.onEvent?.({ type: 'retry', url, attempt: n.attempt, delayMs: n.delayMs, reason: n.error.reason });
    },
    lists.signal,
  );
  const { listUrl, maxCount, pageSize } = lists;
  checkPage(url, fetched.page, { listUrl, countAtStart: stats.countAtStart, maxCount, pageSize });
  adaptive.succeeded();
  if (!probe) stats.pagesFetched++;
  const { count } = fetched.page;
  stats.countAtEnd = count;
  stats.countMin = Math.min(stats.countMin, count);
  stats.countMax = Math.max(stats.countMax, count);
  return fetched;
}
