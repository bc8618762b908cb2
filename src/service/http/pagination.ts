/** DRF 3.14 LimitOffsetPagination as NeuroVault configures it: the page window and its next/previous links. */
import { groupParams, lastValue, pythonInt, urlencodeSorted } from './query-params.js';

/** Page size when `limit` is missing or not a positive integer. */
export const DEFAULT_LIMIT = 100;
/** Larger limits are silently capped to this. */
export const MAX_LIMIT = 1000;

/**
 * `get_limit`: a positive integer capped at MAX_LIMIT; anything else (missing, zero, negative, not an integer) means
 * DEFAULT_LIMIT.
 */
export function effectiveLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const value = pythonInt(raw);
  if (value === undefined || value <= 0n) return DEFAULT_LIMIT;
  return value > BigInt(MAX_LIMIT) ? MAX_LIMIT : Number(value);
}

/** `get_offset`: a non-negative integer of any size; anything else means 0. */
export function effectiveOffset(raw: string | undefined): bigint {
  if (raw === undefined) return 0n;
  const value = pythonInt(raw);
  return value === undefined || value < 0n ? 0n : value;
}

/**
 * Where a page of `limit` rows from `offset` (which may lie past the end) starts and ends in a list of `count` rows
 * (`end` equals `start` for an empty page), and where its neighbours start: the next page's offset is null when this
 * page reaches the end; the previous page's is null when there is none, 'omit' when the link drops `offset`. Follows
 * `paginate_queryset`, `get_next_link` and `get_previous_link`.
 */
export function pageWindow(count: number, limit: number, offset: bigint) {
  const total = BigInt(count);
  const size = BigInt(limit);
  const empty = count === 0 || offset > total;
  const start = empty ? 0 : Number(offset);
  const end = empty ? 0 : Math.min(count, start + limit);
  const nextOffset = offset + size >= total ? null : offset + size;
  let previousOffset: bigint | 'omit' | null = null;
  if (offset > 0n) previousOffset = offset - size <= 0n ? 'omit' : offset - size;
  return { limit, offset, start, end, nextOffset, previousOffset };
}

/** The query parameters that decide a page: the last `limit` and `offset` values, parsed as DRF does. */
export function requestedPage(pairs: readonly (readonly [string, string])[]): { limit: number; offset: bigint } {
  return {
    limit: effectiveLimit(lastValue(pairs, 'limit')),
    offset: effectiveOffset(lastValue(pairs, 'offset')),
  };
}

/**
 * A link rebuilt from the request like DRF's `replace_query_param` / `remove_query_param`: every
 * other parameter kept with all its values, `limit` set, `offset` set or removed, keys sorted.
 */
export function pageLink(
  base: string,
  pairs: readonly (readonly [string, string])[],
  limit: number,
  offset: bigint | 'omit',
): string {
  const params = groupParams(pairs);
  params.set('limit', [String(limit)]);
  if (offset === 'omit') params.delete('offset');
  else params.set('offset', [offset.toString()]);
  const query = urlencodeSorted(params);
  return query === '' ? base : `${base}?${query}`;
}

/** The `next` and `previous` links of a page, absolute, built on `base` (origin plus path). */
export function pageLinks(
  base: string,
  pairs: readonly (readonly [string, string])[],
  window: ReturnType<typeof pageWindow>,
): { next: string | null; previous: string | null } {
  return {
    next: window.nextOffset === null ? null : pageLink(base, pairs, window.limit, window.nextOffset),
    previous: window.previousOffset === null ? null : pageLink(base, pairs, window.limit, window.previousOffset),
  };
}
