/** The events extraction emits while it runs: pages, retries, skips, passes. */

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

/**
 * A pass over the list starts: the first, or a later one that re-pages the list for records that are missing or moved.
 */
export interface PassStartEvent {
  type: 'pass-start';
  /** The pass, from 1. */
  pass: number;
  /** Passes the run makes at most. */
  maxPasses: number;
  /** Records the service counts, as far as known (0 before a fresh run's first page). */
  expected: number;
  /** Unique records the run already holds. */
  received: number;
  /** expected - received, at least 0: what a later pass looks for. */
  missing: number;
  /** Pages of this pass an earlier process of the run already fetched (resume); they are not fetched again. */
  pagesDone: number;
  /** Records on those pages. */
  recordsDone: number;
}

/** A pass over the list ended. */
export interface PassEndEvent {
  type: 'pass-end';
  /** The pass, from 1. */
  pass: number;
  /** Records new to the run. */
  added: number;
  /** Occurrences of records the pass had already seen. */
  duplicates: number;
  /** Records the service counts: `count` of the last page fetched. */
  expected: number;
  /** Unique records the run holds. */
  received: number;
  /** expected - received, at least 0. */
  missing: number;
  /** No sign that offsets shifted under the pass (no repeat, no shrinking `count`). */
  clean: boolean;
}

/**
 * The collections list is paged: before the pass over the image list (round 1), and again after it (round 2) when that
 * pass did not prove itself complete.
 */
export interface CollectionsStartEvent {
  type: 'collections-start';
  /** The list's URL. */
  url: string;
  /** 1 before the pass over the images, 2 after it, 3 and on while the reads after it disagree. */
  round: number;
  /** Pages of it an earlier process of the run already fetched (kept, not fetched again). */
  pagesDone: number;
}

/** The collections list is read, or the service has none. */
export interface CollectionsEndEvent {
  type: 'collections-end';
  /** The list's URL. */
  url: string;
  /** 1 before the pass over the images, 2 after it, 3 and on while the reads after it disagree. */
  round: number;
  /** 200, or what the list answered (404: the service has no collection endpoints; passes over the images follow). */
  status: number;
  /** Public collections the list counts, and distinct ones received. */
  expected: number;
  received: number;
  /** Passes made over the list. */
  passes: number;
}

/**
 * Reconciliation starts: the collections that came up short, changed during the pass, or that the list lacks are read
 * through their own list.
 */
export interface ReconcileStartEvent {
  type: 'reconcile-start';
  /** Collections to read. */
  collections: number;
  /**
   * Of those, the ones whose `modify_date` or `number_of_images` moved while the image list was paged (or since the
   * snapshot an incremental run builds on).
   */
  changed: number;
  /** Of those, the ones the collections list does not hold. */
  unlisted: number;
  /** Of those, the ones new since the snapshot an incremental run builds on. */
  new: number;
  /** Of those, an incremental run's carried collections whose earlier rows did not meet their count (reason doubt). */
  doubt: number;
  /** Of those, the ones an earlier process of the run already read. */
  done: number;
}

/** One collection was read through its own list (or could not be). */
export interface CollectionReadEvent {
  type: 'collection-read';
  /** The collection's id. */
  collection: number;
  /** 200, or what its list answered: 403 (private now) or 404 (deleted); its records are then left out. */
  status: number;
  /** `count` of its list, and the distinct records it served. */
  count: number;
  received: number;
  /** Records new to the run it added. */
  added: number;
}

/** Reconciliation ended. */
export interface ReconcileEndEvent {
  type: 'reconcile-end';
  /** Collections read. */
  collections: number;
  /** Records they added. */
  added: number;
  /** Records their counts name that their lists did not serve. */
  unserved: number;
  /**
   * The image list's `count` the run is held to (at the end of the pass, or asked once more after records were left
   * out as gone: see countAfterGone), and the distinct records the run holds.
   */
  expected: number;
  received: number;
  /** Records the run lacks: the larger of `unserved` and `expected - received` (see missingOf). */
  missing: number;
  /** Records left out because their collection could not be read. */
  dropped: number;
  /** Records left out because their collection's list no longer served them (deleted while the run paged). */
  removed: number;
}

/**
 * What the run found and did about an earlier run's staging: discarded it (too old, another version) or dropped broken
 * pages.
 */
export interface StagingEvent {
  type: 'staging';
  /** One line, naming the staging folder. */
  message: string;
}

/** Records came back changed while the list was paged: the newer copy of each (by `modify_date`) is kept. */
export interface ConflictsEvent {
  type: 'conflicts';
  /** Ids served in copies that differed. */
  count: number;
  /** The first of them, in the order found. */
  firstIds: number[];
}

/** What extraction tells its caller while it runs: pages, retries, skips, passes and reconciliation. */
export type ExtractEvent =
  | PageEvent
  | RetryEvent
  | SkipEvent
  | PassStartEvent
  | PassEndEvent
  | CollectionsStartEvent
  | CollectionsEndEvent
  | ReconcileStartEvent
  | CollectionReadEvent
  | ReconcileEndEvent
  | StagingEvent
  | ConflictsEvent;
