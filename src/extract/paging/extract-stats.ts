/** The counts extraction keeps while it runs (pages, requests, retries), reported at the end. */

/** What paging saw, filled in while it runs. */
export interface ExtractStats {
  /** `count` reported by the first page. */
  countAtStart: number;
  /** `count` reported by the last page fetched. */
  countAtEnd: number;
  /** Smallest and largest `count` seen. */
  countMin: number;
  countMax: number;
  /** Pages of the list fetched (requests that returned one; not a page of no record asked before a split). */
  pagesFetched: number;
  /** Requests sent, failed attempts and the pages of no record asked before a split included. */
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
