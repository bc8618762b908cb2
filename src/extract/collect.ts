/**
 * Extraction: the collections list, one pass over the image list into the staging folder, the collections list again,
 * and the own list of each collection that changed while the pass ran or, unless the pass proved itself complete, came
 * up short (see reconcile.ts): that list decides the collection's rows, so records deleted meanwhile are left out. A
 * service without the collection endpoints gets passes over the image list instead, until every record its `count`
 * names is there or a pass adds nothing. Resumes whatever an earlier process of the same run left, inside any phase.
 */
import type { Checkpoint, JournalEntry } from './checkpoint.js';
import { CollectionTally } from './collection-tally.js';
import { completenessOf, type Completeness } from './completeness.js';
import { ExtractError } from './extract-error.js';
import { ImagePasses } from './image-passes.js';
import { missingOf } from './missing-of.js';
import { PageCache } from './page-cache.js';
import { believedSize, pageCollections, type CollectionsListing } from './page-collections.js';
import { newExtractStats, type ExtractStats, type PaginateOptions } from './paginate.js';
import type { PassSummary } from './pass-summaries.js';
import { reconcile, replayReadings, type Reconciliation } from './reconcile.js';
import { RecordIndex } from './record-index.js';

export type { PassSummary } from './pass-summaries.js';

/** How far to go for completeness. */
export interface CollectOptions extends PaginateOptions {
  /**
   * Passes over the image list at most (the first included) when the service has no collection endpoints; default 3.
   */
  maxPasses?: number;
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
  const cache = new PageCache(checkpoint);
  const earlier = checkpoint.entries;
  const images = new ImagePasses({ options, checkpoint, index, tally, cache, stats, maxPasses }, earlier);
  const addedBefore = replayEarlier(earlier, images, index);

  // The collections list first: its modify dates and counts before the pass are what the list after it is held to.
  const before = await pageCollections(options, checkpoint, 1);
  const first = await images.pass(1);
  const afterFirst = { expected: images.expected, received: index.received };
  // A pass that repeated nothing while `count` never moved, and received all it counts, skipped nothing either.
  const proven = first.duplicates === 0 && first.countMin === first.countMax && index.received >= images.expected;
  let listing = before;
  let reconciliation: Reconciliation | undefined;
  if (before.status !== 200) await images.passAgain(first);
  else {
    // The list again, whatever the pass proved: a collection whose images changed while it ran is read in id order.
    listing = await pageCollections(options, checkpoint, 2, believedSize(before));
    if (listing.status !== 200) throw collectionsGone(listing);
    const expected = images.expected;
    const input = { checkpoint, index, cache, tally, before, listing, addedBefore, expected, proven };
    reconciliation = await reconcile(options, input);
  }
  return collected({ options, stats, index, images, before, listing, reconciliation, afterFirst, proven });
}

/**
 * Adds the pages earlier processes staged to the index in journal order, the image list's to their passes; returns the
 * records each collection's own list added, by collection.
 */
function replayEarlier(earlier: readonly JournalEntry[], images: ImagePasses, index: RecordIndex): Map<number, number> {
  return replayReadings(earlier, index, (page) => images.account(page));
}

/** Where collection ended: what `collected` sums up. */
interface Ended {
  options: CollectOptions;
  stats: ExtractStats;
  index: RecordIndex;
  images: ImagePasses;
  /** The collections list before the first pass, and as last read. */
  before: CollectionsListing;
  listing: CollectionsListing;
  reconciliation: Reconciliation | undefined;
  /** What the first pass counted and received. */
  afterFirst: { expected: number; received: number };
  /** Whether the first pass proved itself complete. */
  proven: boolean;
}

/** What extraction gathered, with the one verdict on completeness whatever the method; tells of conflicting ids. */
function collected(ended: Ended): Collected {
  const { options, stats, index, images, before, listing, reconciliation } = ended;
  const { expected } = images;
  // One verdict whatever the method (a proven pass holds all it counts): the proof and the lines stating it give it.
  // Without collections to find them in, the records the last pass skipped count as missing, even where `count`
  // came out even (a record deleted after it was read).
  const missing =
    reconciliation?.missing ??
    Math.max(missingOf({ unserved: 0, expected, received: index.received }), images.lastSkipped);
  stats.countAtStart = images.countAtStart ?? 0;
  stats.countAtEnd = expected;
  const conflicts = index.conflicts;
  if (conflicts.length > 0)
    options.onEvent?.({ type: 'conflicts', count: conflicts.length, firstIds: conflicts.slice(0, MAX_CONFLICT_IDS) });
  const rounds = listing === before ? 1 : 2;
  const completeness = completenessOf({
    ...ended.afterFirst,
    proven: ended.proven,
    listing,
    reconciliation,
    rounds,
    passes: images.made.length,
    missing,
  });
  const requests = requestCounts(ended, rounds);
  return {
    index,
    passes: images.made,
    expected,
    countAtStart: images.countAtStart ?? 0,
    missing,
    completeness,
    collections: listing,
    requests,
    stats,
    conflicts,
  };
}

/** Requests this process sent per endpoint, the collections list's of both rounds when it was read twice. */
function requestCounts(ended: Ended, rounds: number): RequestCounts {
  const { stats, before, listing, reconciliation } = ended;
  const collections = before.stats.requests + (rounds === 2 ? listing.stats.requests : 0);
  return {
    images: stats.requests,
    collections,
    collection_images: reconciliation?.stats.requests ?? 0,
    image: 0,
  };
}

/** Conflicting ids named in the event and the manifest; the count covers all. */
export const MAX_CONFLICT_IDS = 20;

function collectionsGone(listing: CollectionsListing): ExtractError {
  const reason =
    `returned ${listing.status} after the pass over the images, ` + 'though it listed the collections before it';
  return new ExtractError({
    code: 'HTTP_STATUS',
    kind: 'listing-gone',
    url: listing.url,
    reason,
    status: listing.status,
  });
}
