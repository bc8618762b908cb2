/** A page arrived and was accepted. */
export interface PageEvent {
  type: 'page';
  /** The page URL. */
  url: string;
  /** The page offset. */
  offset: number;
  /** Records on the page. */
  records: number;
  /** `count` the page reported. */
  count: number;
}

/** A request failed and will be tried again. */
export interface RetryEvent {
  type: 'retry';
  /** The page URL. */
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Milliseconds until the next attempt. */
  delayMs: number;
  /** Why it failed, one line. */
  reason: string;
}

/** A record the server could not serve even alone was skipped. */
export interface SkipEvent {
  type: 'skip';
  /** The single-record URL that kept failing. */
  url: string;
  /** The record's offset in the list. */
  offset: number;
  /** The last failure, one line. */
  reason: string;
}

/** What extraction tells its caller while it runs. */
export type ExtractEvent = PageEvent | RetryEvent | SkipEvent;
