/**
 * Extraction: the collections list, one pass over the image list into the staging folder, and unless that pass proved
 * itself complete the collections list again and the own list of each collection that came up short or changed
 * (see reconcile.ts). A service without the collection endpoints gets passes over
 * the image list instead, until every record its `count` names is there or a pass adds nothing. Resumes whatever an
 * earlier process of the same run left, inside any phase.
 */
import type { Checkpoint, JournalPage, RejectKey } from './checkpoint.js';
import { CollectionTally } from './collection-tally.js';
import { completenessOf, type Completeness } from './completeness.js';
import { RepeatingPages } from './endless-list.js';
import { ExtractError } from './extract-error.js';
import { IdMap } from './id-map.js';
import { missingOf } from './missing-of.js';
import { PageCache } from './page-cache.js';
import { pageCollections, type CollectionsListing } from './page-collections.js';
import { newExtractStats, paginate, resumeOf, type ExtractStats, type PaginateOptions } from './paginate.js';
import { reconcile, type Reconciliation } from './reconcile.js';
import { RecordIndex } from './record-index.js';
import { stagePage } from './stage-page.js';

/** How far to go for completeness. */
export interface CollectOptions extends PaginateOptions {
  /**
   * Passes over the image list at most (the first included) when the service has no collection endpoints; default 3.
   */
  maxPasses?: number;
}

/** One pass over the list. */
export interface PassSummary {
  /** The pass, from 1. */
  pass: number;
  /** Records new to the run. */
  added: number;
  /** Occurrences of records the run already had. */
  duplicates: number;
  /** Smallest and largest `count` the pass saw. */
  countMin: number;
  countMax: number;
  /** `count` of the pass's first page. */
  countFirst: number;
  /** No duplicate, and `count` never below the pass's first: no sign that offsets shifted under the pass. */
  clean: boolean;
}

/** Requests sent per endpoint (failed attempts included). */
export interface RequestCounts {
  /** `/api/images/` pages. */
  images: number;
  /** `/api/collections/` pages. */
  collections: number;
  /** `/api/collections/<id>/images/` pages. */
  collection_images: number;
  /** `/api/images/<id>/`: the staging check of a resumed run. */
  image: number;
}

/** What extraction gathered. */
export interface Collected {
  /** The records by id, pointing into the staging folder. */
  index: RecordIndex;
  /** Each pass made over the image list. */
  passes: PassSummary[];
  /** Records the service counts: `count` of the last image-list page fetched. */
  expected: number;
  /** `count` of the run's first page. */
  countAtStart: number;
  /** Records the snapshot lacks, as the completeness proof counts them. */
  missing: number;
  /** The completeness proof. */
  completeness: Completeness;
  /** The collections list as read (its staged pages are the source of replayCollections). */
  collections: CollectionsListing;
  /** Requests this process sent per endpoint (`image` is left to the staging check). */
  requests: RequestCounts;
  /** Extraction totals of the image list. */
  stats: ExtractStats;
  /** Ids served in copies that differed while the lists were paged (the newer copy is kept), in the order found. */
  conflicts: readonly number[];
}

/** Collects the run's records into `checkpoint` and proves (or measures) their completeness. */
export async function collect(
  options: CollectOptions,
  checkpoint: Checkpoint,
  stats: ExtractStats = newExtractStats(),
): Promise<Collected> {
  const maxPasses = Math.max(1, options.maxPasses ?? 3);
  const index = new RecordIndex();
  const tally = new CollectionTally();
  const addedBefore = new Map<number, number>();
  const passes: PassSummary[] = [];
  const earlier = checkpoint.entries;
  const ended = new Set(earlier.flatMap((e) => (e.type === 'pass-end' ? [e.pass] : [])));
  const earlierPages = earlier.filter((e): e is JournalPage => e.type === 'page');
  const summaries = new Map<number, PassSummary>();
  const summaryOf = (pass: number) => {
    let s = summaries.get(pass);
    if (s === undefined)
      summaries.set(
        pass,
        (s = { pass, added: 0, duplicates: 0, countMin: Infinity, countMax: 0, countFirst: NaN, clean: true }),
      );
    return s;
  };
  // Duplicates are counted within a pass: a later pass sees every record again by design.
  // id → the last pass that saw it: a byte each (a pass past 254 goes to the fallback Map)
  const lastPassOf = new IdMap(Uint8Array);
  const lastPassOfContent = new Map<string, number>(); // the same for rejects told apart by their content
  /** Adds a page to the index and its pass's summary; resolves to whether it held a record new to the pass. */
  const account = (page: JournalPage): boolean => {
    const { added, addedAt } = index.add(page);
    if (page.pass === 1) tally.add(page, addedAt);
    const s = summaryOf(page.pass);
    let newToPass = page.ids.length === 0;
    const keys: RejectKey[] = [...page.ids.filter((id) => id !== null), ...page.rejected];
    for (const key of keys) {
      const last = typeof key === 'number' ? lastPassOf.get(key) : lastPassOfContent.get(key);
      if (last === page.pass) s.duplicates++;
      else {
        newToPass = true;
        if (typeof key === 'number') lastPassOf.set(key, page.pass);
        else lastPassOfContent.set(key, page.pass);
      }
    }
    s.added += added;
    if (Number.isNaN(s.countFirst)) s.countFirst = page.count;
    s.countMin = Math.min(s.countMin, page.count);
    s.countMax = Math.max(s.countMax, page.count);
    return newToPass;
  };
  for (const entry of earlier) {
    if (entry.type === 'page') account(entry);
    else if (entry.type === 'collection-page')
      addedBefore.set(entry.collection, (addedBefore.get(entry.collection) ?? 0) + index.add(entry).added);
  }
  const cache = new PageCache(checkpoint);
  let countAtStart = earlierPages[0]?.count;
  let expected = earlierPages.at(-1)?.count ?? 0;

  /** Makes (or finishes) one pass over the image list and adds its summary. */
  const runPass = async (pass: number): Promise<PassSummary> => {
    if (!ended.has(pass)) {
      const mine = earlierPages.filter((p) => p.pass === pass);
      const resume = resumeOf(mine);
      options.onEvent?.({
        type: 'pass-start',
        pass,
        maxPasses,
        expected,
        received: index.received,
        missing: Math.max(0, expected - index.received),
        pagesDone: mine.length,
        recordsDone: mine.reduce((n, p) => n + p.ids.length, 0),
      });
      const passStats = newExtractStats();
      const repeating = new RepeatingPages();
      for await (const batch of paginate(options, passStats, resume)) {
        const page = (await stagePage(
          checkpoint,
          index,
          cache,
          { type: 'page', pass },
          batch,
          passStats.pageSize,
        )) as JournalPage;
        repeating.add(page.url, account(page));
        countAtStart ??= page.count;
        expected = page.count;
      }
      mergeStats(stats, passStats);
      await checkpoint.endPass(pass);
    }
    const summary = summaryOf(pass);
    // Inserts at the end of the list (new uploads) shift nothing; deletes shrink `count`, inserts before the cursor
    // repeat records.
    summary.clean = summary.duplicates === 0 && !(summary.countMin < summary.countFirst);
    passes.push(summary);
    if (!ended.has(pass))
      options.onEvent?.({
        type: 'pass-end',
        pass,
        added: summary.added,
        duplicates: summary.duplicates,
        expected,
        received: index.received,
        missing: Math.max(0, expected - index.received),
        clean: summary.clean,
      });
    return summary;
  };

  // The collections list first: its modify dates and counts before the pass are what the list after it is held to.
  const before = await pageCollections(options, checkpoint, 1);
  const first = await runPass(1);
  const afterFirst = { expected, received: index.received };
  // A pass that repeated nothing while `count` never moved, and received all it counts, skipped nothing either.
  const proven = first.duplicates === 0 && first.countMin === first.countMax && index.received >= expected;
  let listing = before;
  let reconciliation: Reconciliation | undefined;
  if (before.status !== 200) {
    let last = first;
    for (let pass = 2; pass <= maxPasses; pass++) {
      if ((index.received >= expected && last.clean) || (pass > 2 && last.added === 0)) break;
      last = await runPass(pass);
    }
  } else if (!proven) {
    listing = await pageCollections(options, checkpoint, 2);
    if (listing.status !== 200) throw collectionsGone(listing);
    const input = { checkpoint, index, cache, tally, before, listing, addedBefore, expected };
    reconciliation = await reconcile(options, input);
  }
  // One verdict whatever the method (a proven pass holds all it counts): the proof and the lines stating it give it.
  const missing = reconciliation?.missing ?? missingOf({ unserved: 0, expected, received: index.received });
  stats.countAtStart = countAtStart ?? 0;
  stats.countAtEnd = expected;
  const conflicts = index.conflicts;
  if (conflicts.length > 0)
    options.onEvent?.({ type: 'conflicts', count: conflicts.length, firstIds: conflicts.slice(0, MAX_CONFLICT_IDS) });
  const rounds = listing === before ? 1 : 2;
  const completeness = completenessOf({
    ...afterFirst,
    proven,
    listing,
    reconciliation,
    rounds,
    passes: passes.length,
    missing,
  });
  const collections = before.stats.requests + (rounds === 2 ? listing.stats.requests : 0);
  const requests = {
    images: stats.requests,
    collections,
    collection_images: reconciliation?.stats.requests ?? 0,
    image: 0,
  };
  return {
    index,
    passes,
    expected,
    countAtStart: countAtStart ?? 0,
    missing,
    completeness,
    collections: listing,
    requests,
    stats,
    conflicts,
  };
}

/** Conflicting ids named in the event and the manifest; the count covers all. */
export const MAX_CONFLICT_IDS = 20;

function collectionsGone(listing: CollectionsListing): ExtractError {
  const reason =
    `returned ${listing.status} after the pass over the images, ` + 'though it listed the collections before it';
  return new ExtractError({ code: 'HTTP_STATUS', url: listing.url, reason, retryable: true, status: listing.status });
}

function mergeStats(total: ExtractStats, pass: ExtractStats): void {
  total.pagesFetched += pass.pagesFetched;
  total.requests += pass.requests;
  total.retries += pass.retries;
  total.pageSize ||= pass.pageSize;
  total.countMin = Math.min(total.countMin, pass.countMin);
  total.countMax = Math.max(total.countMax, pass.countMax);
  // A record the server cannot serve is skipped again by every pass: report each offset once.
  total.skippedOffsets = [...new Set([...total.skippedOffsets, ...pass.skippedOffsets])].sort((a, b) => a - b);
}
