/** The sanity checks of a list page: links that stay on the list's host, a `count` paging can come to the end of. */
import { ExtractError } from './extract-error.js';
import { isSameHost } from './same-host.js';

/** What a page is held to. */
export interface PageBounds {
  /** The list's URL: the page's links must stay on its host. */
  listUrl: URL;
  /** `count` of the pass's first page; 0 before it is known. */
  countAtStart: number;
  /** Largest `count` believed. */
  maxCount: number;
  /** The page size asked for. */
  pageSize: number;
}

/** Refuses a page whose `next` or `previous` leads off the list's host, or whose `count` paging would never reach. */
export function checkPage(
  url: string,
  page: { next: string | null; previous: string | null; count: number },
  bounds: PageBounds,
): void {
  for (const link of [page.next, page.previous]) checkLink(url, link, bounds.listUrl);
  checkCount(url, page.count, bounds.countAtStart, bounds.maxCount, bounds.pageSize);
}

/**
 * Refuses a `count` no real list has, or one that grew past twice the pass's first plus 100 pages: paging it would
 * never end.
 */
function checkCount(url: string, count: number, first: number, max: number, pageSize: number): void {
  const refuse = (reason: string) => new ExtractError({ code: 'IMPLAUSIBLE_COUNT', url, reason });
  if (count > max) throw refuse(`reported count ${count}, more than the ${max} records any list is believed to hold`);
  if (first > 0 && count > first * 2 + 100 * pageSize)
    throw refuse(
      `reported count ${count}, up from ${first} at the start of the pass: the list grows faster than it can be read`,
    );
}

function checkLink(pageUrl: string, link: string | null, listUrl: URL): void {
  if (link === null) return;
  const target = URL.canParse(link) ? new URL(link) : undefined;
  if (target === undefined) {
    const reason = `returned a link that is not a URL (${JSON.stringify(link.slice(0, 200))})`;
    throw new ExtractError({ code: 'BAD_BODY', kind: 'bad-link', url: pageUrl, reason });
  }
  if (!isSameHost(target, listUrl)) {
    const reason = `returned a link to another host (${target.host}); refusing to follow it`;
    throw new ExtractError({ code: 'FOREIGN_LINK', url: pageUrl, reason });
  }
}
