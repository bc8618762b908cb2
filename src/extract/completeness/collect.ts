/**
 * Completeness: a run's extraction, which proves that it holds every record the service lists. The collections list, a
 * pass over the image list, the list again and the collections that moved or came up short read in full (reconcile.ts);
 * without collection endpoints, passes until the list's `count` is met. Resumes inside any phase.
 */
import type { Checkpoint } from '../staging/checkpoint.js';
import { CollectionTally } from './collection-tally.js';
import { completenessOf, type Completeness } from './completeness.js';
import { ExtractError } from '../paging/extract-error.js';
import { imageCount } from '../paging/image-count.js';
import { ImagePasses } from './image-passes.js';
import { missingOf } from './missing-of.js';
import { PageCache } from '../staging/page-cache.js';
import { believedSize, pageCollections, type CollectionsListing } from './page-collections.js';
import { newExtractStats, type ExtractStats, type PaginateOptions } from '../paging/paginate.js';
import type { PassSummary } from './pass-summaries.js';
import { reconcile, replayReadings, type Reconciliation } from './reconcile.js';
import { RecordIndex } from '../staging/record-index.js';
import { DEFAULT_MAX_PASSES } from '../defaults.js';

export type { PassSummary } from './pass-summaries.js';

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
  /**
   * Records the service counts: `count` of the last image-list page fetched (at the end of the pass, or asked again
   * after reconciliation left records out as gone, never less than that less those records: see countAfterGone).
   */
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

/**
 * Collects the run's records into `checkpoint`, paging the lists as `options` say, and proves (or measures) their
 * completeness; a service without collection endpoints gets `maxPasses` passes over the image list at most.
 */
export async function collect(
  options: PaginateOptions,
  checkpoint: Checkpoint,
  maxPasses = DEFAULT_MAX_PASSES,
  stats: ExtractStats = newExtractStats(),
): Promise<Collected> {
  const index = new RecordIndex();
  const tally = new CollectionTally();
  const cache = new PageCache(checkpoint);
  const earlier = checkpoint.entries;
  const images = new ImagePasses(
    { options, checkpoint, index, tally, cache, stats, maxPasses: Math.max(1, maxPasses) },
    earlier,
  );
  const addedBefore = replayReadings(earlier, index, (page) => images.account(page));

  // The collections list first: its modify dates and counts before the pass are what the list after it is held to.
  const before = await pageCollections(options, checkpoint, 1);
  const first = await images.pass(1);
  const afterFirst = { expected: images.expected, received: index.received };
  // A pass that repeated nothing while `count` never moved, and received all it counts, skipped nothing either.
  const proven = first.duplicates === 0 && first.countMin === first.countMax && index.received >= images.expected;
  let reads = [before];
  let reconciliation: Reconciliation | undefined;
  if (before.status !== 200) await images.passAgain(first);
  else {
    // The list again, whatever the pass proved: a collection whose images changed while it ran is read in id order.
    reads = await settledReads(options, checkpoint, before);
    const listing = reads.at(-1)!;
    const expected = images.expected;
    const recount = () => imageCount(options, stats);
    const input = { checkpoint, index, cache, tally, before, listing, addedBefore, expected, proven, recount };
    reconciliation = await reconcile(options, input);
  }
  return collected({ options, stats, index, images, before, reads, reconciliation, afterFirst, proven });
}

/** Reads of the collections list a run makes at most (the one before the pass and the one after it included). */
export const MAX_COLLECTION_ROUNDS = 4;

/**
 * The reads of the collections list, `before` the pass first, then after it until the last two list the same
 * collections, each read whole (MAX_COLLECTION_ROUNDS reads at most). A read whose ids differ from the one before may
 * be one a change disturbed: a collection deleted between two of its pages and another created meanwhile keep the
 * list's `count`, so the read is not begun again, and the deleted one's going shifts the next behind it: the read names
 * the deleted collection and not the live one. Two reads in a row that agree were not disturbed alike. With no change
 * during the run, the read after the pass agrees with the one before it: no read more.
 */
async function settledReads(
  options: PaginateOptions,
  checkpoint: Checkpoint,
  before: CollectionsListing,
): Promise<CollectionsListing[]> {
  const reads = [before];
  for (let round = 2; round <= MAX_COLLECTION_ROUNDS; round++) {
    const last = reads.at(-1)!;
    if (round > 2 && agree(reads.at(-2)!, last)) break;
    const listing = await pageCollections(options, checkpoint, round, believedSize(last));
    if (listing.status !== 200) throw collectionsGone(listing);
    reads.push(listing);
  }
  return reads;
}

/** Whether two reads of the collections list are each whole and list the same collections. */
function agree(a: CollectionsListing, b: CollectionsListing): boolean {
  return whole(a) && whole(b) && a.sizes.size === b.sizes.size && [...a.sizes.keys()].every((id) => b.sizes.has(id));
}

/** Whether a read of the collections list holds as many collections as its `count` names. */
function whole(listing: CollectionsListing): boolean {
  return held(listing) >= listing.expected;
}

/** The records a read of the collections list holds: each collection once, and each served without a usable id. */
function held(listing: CollectionsListing): number {
  return listing.sizes.size + listing.pages.reduce((n, p) => n + p.ids.filter((id) => id === null).length, 0);
}

/**
 * The collections the run cannot vouch for: what the last read lacks of its `count`, and, when it and the read before
 * it still disagree, each collection only one of them lists.
 */
function unsettled(reads: readonly CollectionsListing[]): number {
  const last = reads.at(-1)!;
  const short = Math.max(0, last.expected - held(last));
  if (reads.length < 2 || agree(reads.at(-2)!, last)) return short;
  const previous = reads.at(-2)!;
  const onlyOne =
    [...previous.sizes.keys()].filter((id) => !last.sizes.has(id)).length +
    [...last.sizes.keys()].filter((id) => !previous.sizes.has(id)).length;
  return Math.max(short, onlyOne);
}

/** Where collection ended: what `collected` sums up. */
interface Ended {
  options: PaginateOptions;
  stats: ExtractStats;
  index: RecordIndex;
  images: ImagePasses;
  /** The collections list before the first pass, then each read after it, the last the one the run goes by. */
  before: CollectionsListing;
  reads: CollectionsListing[];
  reconciliation: Reconciliation | undefined;
  /** What the first pass counted and received. */
  afterFirst: { expected: number; received: number };
  /** Whether the first pass proved itself complete. */
  proven: boolean;
}

/** What extraction gathered, with the one verdict on completeness whatever the method; tells of conflicting ids. */
function collected(ended: Ended): Collected {
  const { options, stats, index, images, reads, reconciliation } = ended;
  const listing = reads.at(-1)!;
  const expected = reconciliation?.expected ?? images.expected;
  // One verdict whatever the method (a proven pass holds all it counts): the proof and the lines stating it give it.
  // Without collections to find them in, the records the last pass skipped count as missing, even where `count`
  // came out even (a record deleted after it was read). A collections list the run could not settle (never read
  // whole, or its last two reads disagree) leaves each collection in doubt counted missing: the run vouches for
  // neither its collections table nor the rows of those collections.
  const missing =
    reconciliation === undefined
      ? Math.max(missingOf({ unserved: 0, expected, received: index.received }), images.lastSkipped)
      : reconciliation.missing + unsettled(reads);
  stats.countAtStart = images.countAtStart ?? 0;
  stats.countAtEnd = expected;
  const conflicts = index.conflicts;
  if (conflicts.length > 0)
    options.onEvent?.({ type: 'conflicts', count: conflicts.length, firstIds: conflicts.slice(0, MAX_CONFLICT_IDS) });
  const rounds = reads.length;
  const completeness = completenessOf({
    ...ended.afterFirst,
    proven: ended.proven,
    listing,
    reconciliation,
    rounds,
    passes: images.made.length,
    missing,
  });
  const requests = requestCounts(ended);
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

/** Requests this process sent per endpoint, the collections list's of every read of it. */
export function requestCounts({ stats, reads, reconciliation }: Pick<Ended, 'stats' | 'reads' | 'reconciliation'>) {
  const collections = reads.reduce((n, read) => n + read.stats.requests, 0);
  return { images: stats.requests, collections, collection_images: reconciliation?.stats.requests ?? 0, image: 0 };
}

/** Conflicting ids named in the event and the manifest; the count covers all. */
export const MAX_CONFLICT_IDS = 20;

function collectionsGone(listing: CollectionsListing): ExtractError {
  const { status, url } = listing;
  const reason = `returned ${status} after the pass over the images, though it listed the collections before it`;
  return new ExtractError({ code: 'HTTP_STATUS', kind: 'listing-gone', url, reason, status });
}
