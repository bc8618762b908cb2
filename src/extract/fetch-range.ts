/** A range of a list fetched as one page, or in halves down to single records while the server answers 500. */
import type { PageBatch } from '../schema/row.js';
import { ExtractError } from './extract-error.js';
import { fetchListPage, type ListRequests } from './fetch-list-page.js';
import { joinPageBodies } from './join-page-bodies.js';
import { pageUrl } from './page-url.js';
import { retryDelay } from './retry.js';

/** Fetches `limit` records at `offset`, splitting the range while the server answers 500. */
export async function fetchRange(lists: ListRequests, offset: number, limit: number): Promise<PageBatch> {
  const url = pageUrl(lists.listUrl, limit, offset);
  try {
    const { page, bytes } = await fetchListPage(lists, url);
    const atEnd = page.results.length === 0 && page.next === null;
    return { source: { url, offset }, count: page.count, records: page.results, limit, body: bytes, atEnd };
  } catch (err) {
    if (!(err instanceof ExtractError) || err.status !== 500 || lists.signal.aborted) throw err;
    // The server asked to be left alone for longer than we wait: no part of the range would fare better now.
    if (err.retryAfterMs !== undefined && retryDelay(1, err, lists.retry) === undefined) throw err;
    if (limit === 1) return skipRecord(lists, url, offset, err);
    const half = Math.ceil(limit / 2);
    const [left, right] = await Promise.all([
      fetchRange(lists, offset, half),
      fetchRange(lists, offset + half, limit - half),
    ]);
    // the count a served part gave (a skipped record's is the run's last known one): the later part's when served
    const count = isServed(right) ? right.count : left.count;
    const body = joinPageBodies(count, [left.body, right.body]);
    const skipped = (left.skipped ?? 0) + (right.skipped ?? 0);
    const records = [...left.records, ...right.records];
    return { source: { url, offset }, count, records, limit, body, ...(skipped > 0 ? { skipped } : {}) };
  }
}

/** Whether the server served some part of the range (not every record of it skipped). */
function isServed(batch: PageBatch): boolean {
  return (batch.skipped ?? 0) < (batch.limit ?? 1);
}

/** Skips the single record at `offset` that the server could not serve: an empty page in its place. */
function skipRecord(lists: ListRequests, url: string, offset: number, err: ExtractError): PageBatch {
  lists.stats.skippedOffsets.push(offset);
  lists.onEvent?.({ type: 'skip', url, offset, reason: err.reason });
  return { source: { url, offset }, count: lists.stats.countAtEnd, records: [], limit: 1, skipped: 1 };
}
