/**
 * Reconciliation after the pass: each collection that moved while the pass ran, is no longer listed or came up short is
 * read in full through its own id-ordered list, which decides its rows (records it no longer serves are left out; a
 * collection that answers 403 or 404 has all of its records left out).
 */
import type { Checkpoint } from '../staging/checkpoint.js';
import type {
  JournalCollectionEnd,
  JournalCollectionPage,
  JournalEntry,
  JournalPage,
  RejectKey,
} from '../staging/journal.js';
import { keptOfCollections, recordsOfCollections, type CollectionTally } from './collection-tally.js';
import { countAfterGone, type Recount } from './count-after-gone.js';
import { DEFAULT_BASE_URL, DEFAULT_CONCURRENCY } from '../defaults.js';
import { ExtractError } from '../paging/extract-error.js';
import { HttpClient } from '../paging/http-client.js';
import { missingOf } from './missing-of.js';
import type { PageCache } from '../staging/page-cache.js';
import { collectionImagesUrlOf, collectionsUrlOf } from '../paging/page-url.js';
import { newExtractStats, paginate, resumeOf, type ExtractStats, type PaginateOptions } from '../paging/paginate.js';
import type { CollectionsListing } from './page-collections.js';
import type { RecordIndex } from '../staging/record-index.js';
import { savePage } from '../staging/save-page.js';

/** Readings of one collection at most: another is made only when its `count` changed while it was paged. */
export const MAX_COLLECTION_ATTEMPTS = 3;

/** Statuses that say a collection cannot be read, in DRF's JSON answer only: private now (403), deleted (404). */
const UNREADABLE = [403, 404];

/**
 * Why a collection is read: short of its `number_of_images`, changed while the pass ran (or since the snapshot an
 * incremental run builds on), not listed after it, new since that snapshot, or in doubt (an incremental run's carried
 * collection whose earlier rows are not its count, read when the image list's count disagrees).
 */
export type ReadReason = 'short' | 'changed' | 'unlisted' | 'new' | 'doubt';

/** One collection read through its own list. */
export interface CollectionReading {
  /** The collection. */
  collection: number;
  /** Why it is read. */
  reason: ReadReason;
  /** Its `number_of_images` in the collections list; null when the list does not hold it. */
  numberOfImages: number | null;
  /** Records the pass over the image list received in it. */
  receivedBefore: number;
  /** 200, or the status its list answered (403, 404). */
  status: number;
  /** `count` of its list's last page. */
  count: number;
  /** Distinct records its list served. */
  received: number;
  /** Records new to the run it added. */
  added: number;
  /** Readings made. */
  attempts: number;
  /** Records of an unreadable collection left out of the snapshot. */
  dropped: number;
  /**
   * Records the run kept in it that its list no longer served (deleted while the run paged): its list decides its rows.
   */
  removed: number;
}

/** What reconciliation did. */
export interface Reconciliation {
  /** Each collection read, ascending by id. */
  readings: CollectionReading[];
  /** Records new to the run that the readings added. */
  added: number;
  /** Records the readings' counts name that their lists did not serve. */
  unserved: number;
  /** Records the run had that their collection's list no longer served, left out (CollectionReading.removed). */
  removed: number;
  /**
   * The image list's `count` the run holds its records to: the one at the end of the pass, or, when records were left
   * out as gone, the one asked after it (see countAfterGone).
   */
  expected: number;
  /** Records the run still lacks after it: the larger of `unserved` and `expected` less the distinct records held. */
  missing: number;
  /** Requests and pages of this process. */
  stats: ExtractStats;
}

/** What reconciliation works on. */
export interface ReconcileInput {
  checkpoint: Checkpoint;
  index: RecordIndex;
  cache: PageCache;
  tally: CollectionTally;
  /** The collections list read before the pass over the image list, and after it. */
  before: CollectionsListing;
  listing: CollectionsListing;
  /** Records new to the run that the staged pages of each collection's readings brought (an earlier process's). */
  addedBefore: ReadonlyMap<number, number>;
  /** The image list's `count` at the end of the pass: the run must hold as many distinct records. */
  expected: number;
  /**
   * Asks the image list for its `count` now: given (a full run), it is asked when records were left out as gone and
   * the run holds fewer records than `expected` (see countAfterGone).
   */
  recount?: Recount;
  /** Whether the pass proved itself complete: then only the collections that changed are read. */
  proven: boolean;
  /** The collections to read and why, when the caller decided (an incremental run); default collectionsToRead's. */
  plan?: ReadonlyMap<number, ReadReason>;
}

/**
 * Which collections to read, and why, ascending by id. After a pass that proved itself complete only those that changed
 * while it ran or are no longer listed: a short one is short by what its `number_of_images` counts besides the list's
 * records (atlases, invalid maps).
 */
export function collectionsToRead(
  tally: CollectionTally,
  before: CollectionsListing,
  after: CollectionsListing,
  proven = false,
): Map<number, ReadReason> {
  const plan = new Map<number, ReadReason>();
  for (const [cid, size] of after.sizes) {
    const received = tally.receivedIn(cid);
    if (!proven && (size === null || received < size - tally.packagesIn(cid))) plan.set(cid, 'short');
    else if (!before.sizes.has(cid) ? (size ?? 0) > 0 || received > 0 : moved(cid, before, after))
      plan.set(cid, 'changed');
  }
  for (const cid of tally.collections()) if (!after.sizes.has(cid)) plan.set(cid, 'unlisted');
  return new Map([...plan].sort((a, b) => a[0] - b[0]));
}

/** Whether a collection's `modify_date` or `number_of_images` differs between two reads of the list. */
export function moved(cid: number, before: CollectionsListing, after: CollectionsListing): boolean {
  return before.modified.get(cid) !== after.modified.get(cid) || before.sizes.get(cid) !== after.sizes.get(cid);
}

/**
 * Adds the pages of collections' own lists that earlier processes staged to the index, in journal order, handing each
 * image-list page to `account` in its place among them (a page staged without a body, its records already held from a
 * collection's list staged before it, must follow that list's page); returns the records each collection's list
 * added, by collection (a resumed reconciliation's `addedBefore`).
 */
export function replayReadings(
  earlier: readonly JournalEntry[],
  index: RecordIndex,
  account?: (page: JournalPage) => void,
): Map<number, number> {
  const addedBefore = new Map<number, number>();
  for (const entry of earlier)
    if (entry.type === 'page') account?.(entry);
    else if (entry.type === 'collection-page')
      addedBefore.set(entry.collection, (addedBefore.get(entry.collection) ?? 0) + index.add(entry).added);
  return addedBefore;
}

/** Reads every short collection through its own list, `concurrency` collections at a time, resuming staged readings. */
export async function reconcile(options: PaginateOptions, input: ReconcileInput): Promise<Reconciliation> {
  const reasons = input.plan ?? collectionsToRead(input.tally, input.before, input.listing, input.proven);
  const plan = [...reasons.keys()];
  const { ended, staged } = stagedReadings(input.checkpoint);
  announceStart(options, plan, reasons, ended);
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const client = new HttpClient(collectionsUrlOf(baseUrl), { connections: concurrency, ...options.http });
  const readings = new Map<number, CollectionReading>();
  const stats = newExtractStats();
  const served = new Map<number, ServedList>();
  const run: ReconcileRun = { options, input, stats, client, baseUrl, reasons, ended, staged, readings, served };
  try {
    const queue = [...plan];
    const worker = async (): Promise<void> => {
      for (let cid = queue.shift(); cid !== undefined; cid = queue.shift()) await readPlanned(run, cid);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, plan.length)) }, worker));
  } finally {
    await client.close().catch(() => undefined);
  }
  const { index } = input;
  const dropped = dropUnreadable([...readings.values()], index) + dropUnlisted(run);
  return summarise(
    run,
    await countAfterGone({ dropped, expected: input.expected, received: index.received }, input.recount),
  );
}

/** What the readings of one reconciliation share. */
interface ReconcileRun {
  options: PaginateOptions;
  input: ReconcileInput;
  stats: ExtractStats;
  client: HttpClient;
  baseUrl: string;
  reasons: ReadonlyMap<number, ReadReason>;
  /** The end marker of each collection an earlier process read to its end. */
  ended: ReadonlyMap<number, JournalCollectionEnd>;
  /** The staged pages of each reading an earlier process began, by `<collection> <attempt>`. */
  staged: ReadonlyMap<string, JournalCollectionPage[]>;
  /** Each collection's reading so far. */
  readings: Map<number, CollectionReading>;
  /** What each collection's last reading served, by collection. */
  served: Map<number, ServedList>;
}

/**
 * The records a collection's last reading served; the ids its pages vouch for, as [lowest, highest] per page: the list
 * is ordered by id, so a page served every record the collection then held from its first id to its last (the first
 * page, every one before; a page that reached the list's `count`, every one after); and whether the `count` held still
 * while it was paged.
 */
interface ServedList {
  keys: Set<RejectKey>;
  spans: [number, number][];
  steady: boolean;
}

/** The journal's collection readings: the end markers, and the pages staged for each reading. */
function stagedReadings(checkpoint: Checkpoint): Pick<ReconcileRun, 'ended' | 'staged'> {
  const ended = new Map<number, JournalCollectionEnd>();
  const staged = new Map<string, JournalCollectionPage[]>();
  for (const entry of checkpoint.entries) {
    if (entry.type === 'collection-end') ended.set(entry.collection, entry);
    if (entry.type === 'collection-page') {
      const key = `${entry.collection} ${entry.attempt}`;
      staged.set(key, [...(staged.get(key) ?? []), entry]);
    }
  }
  return { ended, staged };
}

/** Emits `reconcile-start`: the collections to read, how many changed or are unlisted, how many were read before. */
function announceStart(
  options: PaginateOptions,
  plan: readonly number[],
  reasons: ReadonlyMap<number, ReadReason>,
  ended: ReadonlyMap<number, JournalCollectionEnd>,
): void {
  const count = (reason: ReadReason) => plan.filter((cid) => reasons.get(cid) === reason).length;
  const done = plan.filter((c) => ended.has(c)).length;
  const counts = { changed: count('changed'), unlisted: count('unlisted'), new: count('new'), doubt: count('doubt') };
  options.onEvent?.({ type: 'reconcile-start', collections: plan.length, ...counts, done });
}

/** Reads one planned collection to its end marker (or takes an earlier process's), and emits `collection-read`. */
async function readPlanned(run: ReconcileRun, cid: number): Promise<void> {
  const { input, options } = run;
  const numberOfImages = input.listing.sizes.get(cid) ?? null;
  const reading: CollectionReading = {
    ...{ collection: cid, reason: run.reasons.get(cid)!, numberOfImages, receivedBefore: input.tally.receivedIn(cid) },
    ...{ status: 0, count: 0, received: 0 },
    ...{ added: input.addedBefore.get(cid) ?? 0, attempts: 0, dropped: 0, removed: 0 },
  };
  run.readings.set(cid, reading);
  const earlier = run.ended.get(cid);
  if (earlier !== undefined) run.served.set(cid, servedBy(run.staged.get(`${cid} ${earlier.attempt}`) ?? []));
  const end = earlier ?? (await readToEnd(run, cid, reading));
  const { status, count, received } = end;
  Object.assign(reading, { status, count, received, attempts: end.attempt });
  options.onEvent?.({ type: 'collection-read', collection: cid, status, count, received, added: reading.added });
}

/** Reads a collection until a reading ends (its `count` steady), or the last attempt ends it as it stands. */
async function readToEnd(run: ReconcileRun, cid: number, reading: CollectionReading): Promise<JournalCollectionEnd> {
  const { client } = run;
  for (let attempt = 1; ; attempt++) {
    const target = {
      url: collectionImagesUrlOf(run.baseUrl, cid),
      client,
      countHint: Math.max(reading.numberOfImages ?? 0, reading.receivedBefore),
      answers: UNREADABLE,
    };
    const staged = run.staged.get(`${cid} ${attempt}`) ?? [];
    const end = await readCollection(run, target, { cid, attempt, staged, reading });
    if (end !== undefined) return end;
    if (attempt >= MAX_COLLECTION_ATTEMPTS) return finish(run.input.checkpoint, cid, attempt, 200, reading);
  }
}

/** Emits `reconcile-end` with the totals it returns, the run's records held to `expected`. */
function summarise(run: ReconcileRun, expected: number): Reconciliation {
  const { options, input, stats } = run;
  const index = input.index;
  const list = [...run.readings.values()].sort((a, b) => a.collection - b.collection);
  const added = list.reduce((n, r) => n + r.added, 0);
  const unserved = list.reduce((n, r) => n + (r.status === 200 ? Math.max(0, r.count - r.received) : 0), 0);
  const shortfall = { unserved, expected, received: index.received };
  const missing = missingOf(shortfall);
  const dropped = list.reduce((n, r) => n + r.dropped, 0);
  const removed = list.reduce((n, r) => n + r.removed, 0);
  const totals = { collections: list.length, added, ...shortfall, missing, dropped, removed };
  options.onEvent?.({ type: 'reconcile-end', ...totals });
  return { readings: list, added, unserved, expected, missing, removed, stats };
}

/** Which reading of which collection, with its pages an earlier process staged and its reading so far. */
interface ReadingOf {
  cid: number;
  attempt: number;
  staged: readonly JournalCollectionPage[];
  reading: CollectionReading;
}

/**
 * One reading of a collection's list, resuming its staged pages: resolves to its end marker, or to undefined when
 * the list's `count` changed while it was paged (records shifted across pages: read it again). Keeps what it served.
 */
async function readCollection(
  run: ReconcileRun,
  target: { url: URL; client: HttpClient; countHint: number },
  { cid, attempt, staged, reading }: ReadingOf,
): Promise<JournalCollectionEnd | undefined> {
  const { options, input, stats } = run;
  const { checkpoint, index, cache } = input;
  const pages = [...staged];
  const resume = resumeOf(staged);
  const quiet = { ...options, concurrency: 1, onEvent: retriesOnly(options.onEvent) };
  try {
    for await (const batch of paginate(quiet, stats, resume, target)) {
      const place = { type: 'collection-page', collection: cid, attempt } as const;
      const page = (await savePage(checkpoint, index, cache, place, batch, stats.pageSize)) as JournalCollectionPage;
      reading.added += index.add(page).added;
      pages.push(page);
    }
  } catch (err) {
    // Only DRF's answer says the collection is private or gone; a proxy's page with these statuses failed its retries.
    const status = err instanceof ExtractError && err.drf === true ? err.status : undefined;
    if (status === undefined || !UNREADABLE.includes(status)) throw err;
    return finish(checkpoint, cid, attempt, status, reading, 0, 0);
  }
  const served = servedBy(pages);
  if (!served.steady && attempt < MAX_COLLECTION_ATTEMPTS) return undefined;
  run.served.set(cid, served);
  return finish(checkpoint, cid, attempt, 200, reading, pages.at(-1)?.count ?? 0, served.keys.size);
}

/** What a reading's pages served: each record's key, the ids each page vouches for, whether `count` held still. */
function servedBy(pages: readonly JournalCollectionPage[]): ServedList {
  const keys = new Set<RejectKey>();
  const spans: [number, number][] = [];
  for (const page of pages) {
    const ids: number[] = [];
    let r = 0;
    for (const id of page.ids) {
      const key = id ?? page.rejected[r++]!;
      keys.add(key);
      if (typeof key === 'number') ids.push(key);
    }
    const low = page.offset === 0 ? -Infinity : Math.min(...ids);
    const high = page.offset + page.ids.length >= page.count ? Infinity : Math.max(...ids);
    if (low <= high) spans.push([low, high]);
  }
  const counts = pages.map((p) => p.count);
  return { keys, spans, steady: Math.min(...counts) === Math.max(...counts) };
}

async function finish(
  checkpoint: Checkpoint,
  collection: number,
  attempt: number,
  status: number,
  reading: CollectionReading,
  count = reading.count,
  received = reading.received,
): Promise<JournalCollectionEnd> {
  const end: JournalCollectionEnd = { type: 'collection-end', collection, attempt, status, count, received };
  await checkpoint.mark(end);
  return end;
}

/**
 * Leaves out of the run every record of the collections that could not be read; counts them on their reading, and
 * returns how many.
 */
function dropUnreadable(readings: CollectionReading[], index: RecordIndex): number {
  const gone = readings.filter((r) => r.status !== 200);
  for (const reading of gone) {
    for (const key of recordsOfCollections(index.pages, new Set([reading.collection])))
      if (index.drop(key)) reading.dropped++;
  }
  return gone.reduce((n, r) => n + r.dropped, 0);
}

/**
 * Leaves out of the run each record it keeps in a collection read in full whose list no longer served it (deleted while
 * the run paged): the id-ordered list decides the collection's rows. Returns how many. A record is decided by the page
 * whose ids span its own, whether or not the `count` moved while the list was paged: a deletion before the cursor
 * shifts a record past it only between two pages, so one whose id falls between two pages' is kept. A record without
 * a usable id is decided only by a reading whose `count` held still.
 */
function dropUnlisted(run: ReconcileRun): number {
  const lists = new Map<number, ServedList>();
  for (const reading of run.readings.values()) {
    const served = run.served.get(reading.collection);
    if (reading.status === 200 && served !== undefined) lists.set(reading.collection, served);
  }
  const { index } = run.input;
  let removed = 0;
  for (const [cid, keys] of keptOfCollections(index, new Set(lists.keys()))) {
    const reading = run.readings.get(cid)!;
    for (const key of keys) if (provedGone(lists.get(cid)!, key) && index.drop(key)) reading.removed++;
    removed += reading.removed;
  }
  return removed;
}

/** Whether a reading proves a record the run keeps in its collection deleted (see dropUnlisted). */
function provedGone({ keys, spans, steady }: ServedList, key: RejectKey): boolean {
  if (keys.has(key)) return false;
  return typeof key === 'number' ? spans.some(([low, high]) => low <= key && key <= high) : steady;
}

/** Passes retries through and keeps the per-page events of a collection's list out of the image pass's progress. */
function retriesOnly(onEvent: PaginateOptions['onEvent']): PaginateOptions['onEvent'] {
  return onEvent === undefined ? undefined : (event) => (event.type === 'page' ? undefined : onEvent(event));
}
