/**
 * Extraction of an incremental run: a collection whose `modify_date` and `number_of_images` match the earlier snapshot
 * has the same images (NeuroVault saves a collection whenever one of its images changes), so its rows are carried over
 * and only new and changed collections, and those no longer listed, are read. The image list's `count` must then add
 * up, or the collections in doubt are read, or the caller makes a full pass: a run never publishes a guess.
 */
import type { Checkpoint } from '../staging/checkpoint.js';
import type { JournalCount } from '../staging/journal.js';
import { CollectionTally } from './collection-tally.js';
import { requestCounts, type Collected } from './collect.js';
import { completenessOf } from './completeness.js';
import { imageCount } from '../paging/image-count.js';
import { PageCache } from '../staging/page-cache.js';
import { believedSize, pageCollections, type CollectionsListing } from './page-collections.js';
import { newExtractStats, type ExtractStats, type PaginateOptions } from '../paging/paginate.js';
import { moved, reconcile, replayReadings, type ReadReason, type Reconciliation } from './reconcile.js';
import { RecordIndex } from '../staging/record-index.js';

/** A collection as an earlier snapshot's collections table holds it. */
export interface BaseCollection {
  /** Its `modify_date`, UTC microseconds (null when the table holds none). */
  modified: number | null;
  /** Its `number_of_images` (null when the table holds none). */
  size: number | null;
  /** Rows the snapshot holds in it: images written and rejects. */
  rows: number;
}

/** What an incremental run builds on: the collections of the snapshot whose rows it carries over. */
export interface IncrementalBase {
  /** The snapshot's folder name. */
  name: string;
  /** Its collections table, by id. */
  collections: ReadonlyMap<number, BaseCollection>;
  /**
   * Collections its rows (or rejects) name that its collections table does not hold: no list vouched for those rows,
   * so they are never carried over, but read through their collection's own list.
   */
  unlisted: ReadonlySet<number>;
  /** Its rows, images and rejects. */
  rows: number;
  /** The records its service counted but never served (its manifest's `missing`): looked for, never carried. */
  missing: number;
}

/** An incremental run's extraction: what a full one gives, and the collections whose rows the run carries over. */
export interface IncrementalCollected extends Collected {
  /** The collections carried over from the base, unchanged. */
  carried: ReadonlySet<number>;
  /** Rows carried over: those of the carried collections. */
  carriedRows: number;
}

/** Why an incremental run gives up and makes a full pass, one line. */
export interface IncrementalFallback {
  fallback: string;
}

/**
 * Reads what changed since `base` into `checkpoint`, and checks the result against the image list's `count`; resolves
 * to the run's records, or to why a full pass is needed.
 */
export async function collectIncremental(
  options: PaginateOptions,
  checkpoint: Checkpoint,
  base: IncrementalBase,
): Promise<IncrementalCollected | IncrementalFallback> {
  const stats = newExtractStats();
  const index = new RecordIndex();
  const cache = new PageCache(checkpoint);
  const before = await pageCollections(options, checkpoint, 1, base.collections.size);
  if (before.status !== 200)
    return { fallback: `the collections list answered ${before.status}: an incremental run reads through it` };
  const addedBefore = replayReadings(checkpoint.entries, index); // what an earlier process of the run read
  const common = { checkpoint, index, cache, tally: new CollectionTally(), addedBefore, proven: true };
  const read = (listing: CollectionsListing, plan: Map<number, ReadReason>) =>
    reconcile(options, { ...common, before, listing, expected: 0, plan });
  const first = await read(before, since(base, before));
  // The second read asks for as many pages at once as --concurrency allows: the image list's count follows it.
  const listing = await pageCollections(options, checkpoint, 2, believedSize(before));
  if (listing.status !== 200) return { fallback: `the collections list answered ${listing.status} at the end` };
  // A collection read above that moved since: its reading may hold a copy from before the change, and a reading of
  // it again would share the first one's journal. Rare (it changed twice within one run): a full pass.
  const readFirst = readIn([first]);
  const again = [...readFirst].filter((cid) => listing.sizes.has(cid) && moved(cid, before, listing));
  if (again.length > 0)
    return { fallback: `collections changed again after the run read them (${again.slice(0, 5).join(', ')})` };
  const count = await countOnce(options, checkpoint, stats);
  const parts = [first, await read(listing, movedSince(before, listing, readFirst, base))];
  // A collection of the base the first read showed and the second does not is gone only if its own list says so: one
  // deleted between two pages of the second read shifts the next behind it, and one created meanwhile keeps the
  // list's count, so the read names the deleted one and not the one shifted. One still served: a full pass.
  const shown = parts[1]!.readings.filter((r) => r.reason === 'unlisted' && r.status === 200).map((r) => r.collection);
  if (shown.length > 0)
    return {
      fallback:
        `the second read of the collections list left out collections their own lists still serve ` +
        `(${shown.slice(0, 5).join(', ')}): the list changed while it was read`,
    };
  let rows = rowsHeld(base, listing, parts, index);
  // A count the rows and the records the lists read left unserved do not meet (a record the base missed, served again
  // or not): the collections whose carried rows disagree with their count are read too. A resumed run whose index
  // holds records an earlier process staged of collections read for no reason yet was killed while it read them: its
  // rows, which hold those records, do not decide.
  const begun = [...addedBefore.keys()].filter((cid) => rows.carried.has(cid));
  const doubt =
    rows.held + rows.unserved === count && begun.length === 0
      ? new Map<number, ReadReason>()
      : inDoubt(base, listing, rows.carried, begun);
  if (doubt.size > 0) {
    parts.push(await read(listing, doubt));
    rows = rowsHeld(base, listing, parts, index);
  }
  if (rows.held + rows.unserved !== count)
    return {
      fallback:
        `the image list counts ${count}, but the snapshot would hold ${rows.held} (${rows.carriedRows} carried ` +
        `over, ${index.received} read) and the collections read left ${rows.unserved} unserved`,
    };
  const reconciliation = merged(parts);
  return collected({ index, stats, before, listing, reconciliation, count, base, ...rows });
}

/** The image list's count: the one the journal holds (a resumed run), else asked for now and kept there. */
async function countOnce(options: PaginateOptions, checkpoint: Checkpoint, stats: ExtractStats): Promise<number> {
  const kept = checkpoint.entries.find((e): e is JournalCount => e.type === 'count');
  if (kept !== undefined) return kept.count;
  const count = await imageCount(options, stats);
  await checkpoint.mark({ type: 'count', count });
  return count;
}

/** The collections read by these reconciliations. */
function readIn(parts: readonly Reconciliation[]): Set<number> {
  return new Set(parts.flatMap((p) => p.readings.map((r) => r.collection)));
}

/**
 * What the run would hold: the collections carried over (the base's listed ones not read: the one place that decides
 * which rows are carried), their rows, all rows, and the records the collections read counted and did not serve.
 */
function rowsHeld(
  base: IncrementalBase,
  listing: CollectionsListing,
  parts: readonly Reconciliation[],
  index: RecordIndex,
): { carried: Set<number>; carriedRows: number; held: number; unserved: number } {
  const read = readIn(parts);
  const carried = new Set([...base.collections.keys()].filter((cid) => listing.sizes.has(cid) && !read.has(cid)));
  const carriedRows = [...carried].reduce((n, cid) => n + base.collections.get(cid)!.rows, 0);
  const unserved = parts.reduce((n, p) => n + p.unserved, 0);
  return { carried, carriedRows, held: carriedRows + index.received, unserved };
}

/**
 * The carried collections whose rows in the base are not their `number_of_images` now, and those an earlier process
 * began to read as such (`begun`), ascending: where a count the rows do not meet may come from (a collection of NIDM
 * results packages, which its count includes, is among them).
 */
export function inDoubt(
  base: IncrementalBase,
  listing: CollectionsListing,
  carried: ReadonlySet<number>,
  begun: readonly number[] = [],
): Map<number, ReadReason> {
  const doubt = [...carried].filter((cid) => base.collections.get(cid)!.rows !== listing.sizes.get(cid));
  return new Map([...new Set([...doubt, ...begun])].sort((a, b) => a - b).map((cid) => [cid, 'doubt']));
}

/**
 * The collections new or changed since the base (its `modify_date` or `number_of_images`), and those the base holds
 * rows of that its collections list did not show (their own lists say whether they are gone), ascending.
 */
export function since(base: IncrementalBase, listing: CollectionsListing): Map<number, ReadReason> {
  const plan = new Map<number, ReadReason>();
  for (const [cid, size] of listing.sizes) {
    const was = base.collections.get(cid);
    if (was === undefined) {
      if (size !== 0 || base.unlisted.has(cid)) plan.set(cid, 'new');
    } else if (was.size !== size || was.modified !== listing.modified.get(cid) || size === null)
      plan.set(cid, 'changed');
  }
  for (const cid of base.unlisted) if (!listing.sizes.has(cid)) plan.set(cid, 'unlisted');
  return new Map([...plan].sort((a, b) => a[0] - b[0]));
}

/**
 * The collections not read yet that moved between two reads of the list, and the base's collections the first read
 * showed that the second no longer holds (`unlisted`: its own list says whether it is gone).
 */
function movedSince(
  before: CollectionsListing,
  after: CollectionsListing,
  read: ReadonlySet<number>,
  base: IncrementalBase,
): Map<number, ReadReason> {
  const plan = new Map<number, ReadReason>();
  for (const cid of after.sizes.keys()) {
    if (!read.has(cid) && moved(cid, before, after)) plan.set(cid, before.sizes.has(cid) ? 'changed' : 'new');
  }
  for (const cid of before.sizes.keys())
    if (!read.has(cid) && !after.sizes.has(cid) && base.collections.has(cid)) plan.set(cid, 'unlisted');
  return new Map([...plan].sort((a, b) => a[0] - b[0]));
}

/** The reconciliations as one, their readings ascending by collection. */
function merged(parts: readonly Reconciliation[]): Reconciliation {
  const sum = (key: 'added' | 'unserved' | 'removed') => parts.reduce((n, p) => n + p[key], 0);
  const readings = parts.flatMap((p) => p.readings).sort((a, b) => a.collection - b.collection);
  const requests = parts.reduce((n, p) => n + p.stats.requests, 0);
  const stats = { ...parts.at(-1)!.stats, requests };
  const totals = { added: sum('added'), unserved: sum('unserved'), removed: sum('removed') };
  return { readings, ...totals, expected: parts.at(-1)!.expected, missing: 0, stats };
}

/** What `collected` is made of. */
interface Ended {
  index: RecordIndex;
  stats: ReturnType<typeof newExtractStats>;
  before: CollectionsListing;
  listing: CollectionsListing;
  reconciliation: Reconciliation;
  count: number;
  base: IncrementalBase;
  carried: Set<number>;
  carriedRows: number;
  held: number;
}

/** The run's records and its proof: complete by the image list's count, the carried rows included. */
function collected(ended: Ended): IncrementalCollected {
  const { index, stats, before, listing, reconciliation, count, base, carried, carriedRows } = ended;
  const missing = count - ended.held; // what the collections read counted and did not serve
  const completeness = completenessOf({
    expected: count,
    received: carriedRows + index.received,
    proven: true,
    listing,
    reconciliation: { ...reconciliation, missing },
    rounds: 2,
    passes: 0,
    missing,
    incremental: {
      base: base.name,
      carried_collections: carried.size,
      carried_records: carriedRows,
      read_collections: reconciliation.readings.length,
      vanished_collections: [...base.collections.keys()].filter((cid) => !listing.sizes.has(cid)).length,
      base_records: base.rows,
      count,
      base_missing: base.missing,
    },
  });
  const requests = requestCounts({ stats, reads: [before, listing], reconciliation });
  const conflicts = index.conflicts;
  return {
    ...{ index, passes: [], expected: count, countAtStart: count, missing, completeness, collections: listing },
    ...{ requests, stats, conflicts, carried, carriedRows },
  };
}
