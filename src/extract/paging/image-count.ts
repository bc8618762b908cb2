/**
 * The image list's `count` as it stands now: one request for a page of one record, retried as a page of a pass is. An
 * incremental run holds its rows to it.
 */
import { DEFAULT_BASE_URL } from '../defaults.js';
import type { ExtractStats } from './extract-stats.js';
import { HttpClient } from './http-client.js';
import { listUrlOf, pageUrl } from './page-url.js';
import type { PaginateOptions } from './paginate.js';
import { withRetry } from './retry.js';

/** Fetches a page of one record of the image list and resolves to its `count`; counts the request in `stats`. */
export async function imageCount(options: PaginateOptions, stats: ExtractStats): Promise<number> {
  const listUrl = listUrlOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const client = new HttpClient(listUrl, { connections: 1, ...options.http });
  const url = pageUrl(listUrl, 1, 0);
  try {
    const { page } = await withRetry(
      () => {
        stats.requests++;
        return client.getPage(url, options.signal);
      },
      options.retry,
      (n) => {
        stats.retries++;
        options.onEvent?.({ type: 'retry', url, attempt: n.attempt, delayMs: n.delayMs, reason: n.error.reason });
      },
      options.signal,
    );
    stats.countAtStart = stats.countAtEnd = page.count;
    return page.count;
  } finally {
    await client.close().catch(() => undefined);
  }
}
