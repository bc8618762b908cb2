/** A range of a list fetched as one page, or in halves down to single records while the server answers 500. */
import type { PageBatch } from '../../schema/row.js';
import { ExtractError } from './extract-error.js';
import { fetchListPage, type ListRequests } from './fetch-list-page.js';
import { joinPageBodies } from './join-page-bodies.js';
import { pageUrl } from './page-url.js';
import { retryDelay } from './retry.js';

/**
 * Fetches `limit` records at `offset`, splitting the range while the server answers 500: once a page of no record is
 * seen to be served (else the service is out, not a record bad: its error is thrown), then in halves down to single
 * records, each skipped that the server cannot serve.
 */
export async function fetchRange(lists: ListRequests, offset: number, limit: number): Promise<PageBatch> {
  try {
    return await fetchWhole(lists, offset, limit);
  } catch (err) {
    return splitFailedRange(lists, offset, limit, err);
  }
}

/**
 * The range whose fetch failed with `err`, split (splitRange) when `err` is a 500 that splitting may get round and a
 * page of no record is served; else throws `err`. One request tells a bad record from an outage, where splitting would
 * ask twice as many pages as the range holds records, each with its retries.
 */
export async function splitFailedRange(
  lists: ListRequests,
  offset: number,
  limit: number,
  err: unknown,
): Promise<PageBatch> {
  if (isSplittable(err, lists) && limit > 1)
    await fetchListPage(lists, pageUrl(lists.listUrl, 1, PAST_ANY_LIST), { probe: true }).catch(() => {
      throw err;
    });
  return splitOrSkip(lists, offset, limit, err);
}

/** The range whose fetch failed with `err` in halves (splitRange), or skipped when it is one record; else throws. */
function splitOrSkip(lists: ListRequests, offset: number, limit: number, err: unknown): Promise<PageBatch> {
  if (!isSplittable(err, lists)) throw err;
  return limit === 1 ? Promise.resolve(skipRecord(lists, offset, err)) : splitRange(lists, offset, limit);
}

/**
 * An offset past the end of any list: a page there holds no record (DRF answers `[]` for an offset past `count`
 * without reading a row), so it is served whatever records the server cannot serve, and fails only in an outage.
 */
const PAST_ANY_LIST = 2_147_483_647;

/** The range fetched as one page. */
async function fetchWhole(lists: ListRequests, offset: number, limit: number): Promise<PageBatch> {
  const url = pageUrl(lists.listUrl, limit, offset);
  const { page, bytes, text } = await fetchListPage(lists, url);
  const atEnd = page.results.length === 0 && page.next === null;
  return {
    source: { url, offset },
    count: page.count,
    records: page.results,
    limit,
    body: bytes,
    bodyText: text,
    atEnd,
  };
}

/** Whether `err` is a 500 that asking for less may get round (not one asking to wait longer than the run waits). */
function isSplittable(err: unknown, lists: ListRequests): err is ExtractError {
  if (!(err instanceof ExtractError) || err.status !== 500 || lists.signal.aborted) return false;
  // The server asked to be left alone for longer than we wait: no part of the range would fare better now.
  return err.retryAfterMs === undefined || retryDelay(1, err, lists.retry) !== undefined;
}

/** The range in two halves, each fetched whole or split again, down to single records. */
async function splitRange(lists: ListRequests, offset: number, limit: number): Promise<PageBatch> {
  const half = Math.ceil(limit / 2);
  const part = (at: number, n: number) =>
    fetchWhole(lists, at, n).catch((err: unknown) => splitOrSkip(lists, at, n, err));
  const [left, right] = await Promise.all([part(offset, half), part(offset + half, limit - half)]);
  // the count a served part gave (a skipped record's is the run's last known one): the later part's when served
  const count = isServed(right) ? right.count : left.count;
  const body = joinPageBodies(count, [left.body, right.body]);
  const skipped = (left.skipped ?? 0) + (right.skipped ?? 0);
  const records = [...left.records, ...right.records];
  const url = pageUrl(lists.listUrl, limit, offset);
  return { source: { url, offset }, count, records, limit, body, ...(skipped > 0 ? { skipped } : {}) };
}

/** Whether the server served some part of the range (not every record of it skipped). */
function isServed(batch: PageBatch): boolean {
  return (batch.skipped ?? 0) < (batch.limit ?? 1);
}

/** Skips the single record at `offset` that the server could not serve: an empty page in its place. */
function skipRecord(lists: ListRequests, offset: number, err: ExtractError): PageBatch {
  const url = pageUrl(lists.listUrl, 1, offset);
  lists.stats.skippedOffsets.push(offset);
  lists.onEvent?.({ type: 'skip', url, offset, reason: err.reason });
  return { source: { url, offset }, count: lists.stats.countAtEnd, records: [], limit: 1, skipped: 1 };
}
