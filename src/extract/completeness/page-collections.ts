/**
 * The collections list of a run (`/api/collections/`), paged until its own id set is complete and every page staged;
 * read before and after the pass over the image list, so that a collection that moved between the two is read again. A
 * service that answers 404 there has no collection endpoints: completeness then rests on the image list's count.
 */
import type { PageBatch } from '../../schema/row.js';
import type { Checkpoint } from '../staging/checkpoint.js';
import type { JournalCollectionsPage, Unstaged } from '../staging/journal.js';
import { DEFAULT_BASE_URL, DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE } from '../defaults.js';
import { RepeatingPages } from '../paging/endless-list.js';
import { ExtractError } from '../paging/extract-error.js';
import { stagedBodyOf } from '../paging/join-page-bodies.js';
import { modifiedAt } from '../staging/modified-at.js';
import { collectionsUrlOf } from '../paging/page-url.js';
import { newExtractStats, paginate, resumeOf, type ExtractStats, type PaginateOptions } from '../paging/paginate.js';

/** Passes over the collections list at most while its id set is incomplete (it is small: 14 pages on NeuroVault). */
export const MAX_COLLECTION_PASSES = 10;

/** The smallest page a list of believed size is split into: below it, a page costs the service mostly its overhead. */
export const MIN_SPLIT_PAGE = 100;

/** What the collections list said: the listing a read of it ends with (ListingSoFar.listing). */
export type CollectionsListing = ReturnType<ListingSoFar['listing']>;

/**
 * Pages the collections list into `checkpoint` in `round` (1 before the image pass, 2 after it), resuming what an
 * earlier process staged, until its id set is complete. When the run believes how many collections the list holds
 * (`believed`: an earlier read's count), it asks for the whole list at once, in as many pages as it fetches at a time
 * (none under MIN_SPLIT_PAGE, none over the run's page size), instead of one page first and then the rest.
 */
export async function pageCollections(
  options: PaginateOptions,
  checkpoint: Checkpoint,
  round: number,
  believed?: number,
): Promise<CollectionsListing> {
  const url = collectionsUrlOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const seen = new ListingSoFar(url, newExtractStats());
  const staged = checkpoint.entries.filter(
    (e): e is JournalCollectionsPage => e.type === 'collections-page' && e.round === round,
  );
  for (const page of staged) seen.add(page);
  const end = checkpoint.entries.find((e) => e.type === 'collections-end' && e.round === round);
  if (end?.type === 'collections-end') return seen.listing(end.status, end.passes);

  const r: Round = { options: splitOptions(options, believed), checkpoint, round, seen, believed: believed ?? 0 };
  options.onEvent?.({ type: 'collections-start', url: url.href, round, pagesDone: staged.length });
  let pass = Math.max(1, ...staged.map((p) => p.pass));
  for (; ; pass++) {
    try {
      await pagePass(r, pass, staged);
    } catch (err) {
      const nothingYet = seen.sizes.size === 0 && staged.length === 0;
      if (!(nothingYet && err instanceof ExtractError && err.status === 404)) throw err;
      return endRound(r, { status: 404, expected: 0, received: 0, passes: 0 });
    }
    const complete = seen.sizes.size >= seen.expected;
    if (complete || pass >= MAX_COLLECTION_PASSES) break;
  }
  return endRound(r, { status: 200, expected: seen.expected, received: seen.sizes.size, passes: pass });
}

/** The size of the list an earlier read found: what the next read believes; undefined when it answered no list. */
export function believedSize(listing: CollectionsListing): number | undefined {
  return listing.status === 200 ? listing.expected : undefined;
}

/** The collections list as read so far: what CollectionsListing reports of it. */
class ListingSoFar {
  /** Each public collection's `number_of_images` as last served (null when not a whole number), by id. */
  readonly sizes = new Map<number, number | null>();
  /** Each public collection's `modify_date` as last served, UTC microseconds (null when unreadable), by id. */
  readonly modified = new Map<number, number | null>();
  /** `count` of the last page: the public collections. */
  expected = 0;
  /**
   * Its staged pages since the list last changed size (see add), an earlier process's included, in journal order (the
   * source of replayCollections).
   */
  readonly pages: JournalCollectionsPage[] = [];

  constructor(
    /** The list's URL. */
    readonly url: URL,
    /** Requests and pages of this process. */
    readonly stats: ExtractStats,
  ) {}

  /**
   * Adds a staged page: its collections' sizes and modify dates, and its `count`. A `count` other than the page before
   * it says the list changed size between the two: a collection gone shifts the rest back past the offsets already
   * read (one never seen) while the pages before still name it, so what was read before is forgotten, to be read again.
   */
  add(page: JournalCollectionsPage): void {
    if (this.pages.length > 0 && page.count !== this.expected) {
      this.sizes.clear();
      this.modified.clear();
      this.pages.length = 0;
    }
    this.pages.push(page);
    page.ids.forEach((id, position) => {
      if (id === null) return;
      this.sizes.set(id, page.sizes[position] ?? null);
      this.modified.set(id, page.modified[position] ?? null);
    });
    this.expected = page.count;
  }

  /**
   * The listing, as the list answered `status` (200 when the service lists its collections; else what its list
   * answered, 404: none) after `passes` passes over it.
   */
  listing(status: number, passes: number) {
    const { sizes, modified, expected, pages, stats } = this;
    return { status, url: this.url.href, sizes, modified, expected, passes, pages, stats };
  }
}

/** One round of paging the collections list. */
interface Round {
  options: PaginateOptions;
  checkpoint: Checkpoint;
  round: number;
  seen: ListingSoFar;
  /** The collections the list is believed to hold; 0 when not known. */
  believed: number;
}

/** The paging options of a round: pages that split a list of `believed` collections over the requests made at once. */
function splitOptions(options: PaginateOptions, believed: number | undefined): PaginateOptions {
  if (believed === undefined || believed <= 0) return options;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const atOnce = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  return { ...options, pageSize: Math.min(pageSize, Math.max(MIN_SPLIT_PAGE, Math.ceil(believed / atOnce))) };
}

/** Pages the collections list once (pass `pass` of the round) into the staging folder, resuming the pages `staged`. */
async function pagePass(r: Round, pass: number, staged: readonly JournalCollectionsPage[]): Promise<void> {
  const { seen } = r;
  const mine = staged.filter((p) => p.pass === pass);
  const resume = resumeOf(mine);
  // Unless the list's size is believed, the first request alone: a service without the endpoint answers one 404, not
  // one per page asked for at once.
  const target = { url: seen.url, countHint: pass === 1 && seen.sizes.size === 0 ? r.believed : seen.expected };
  const repeating = new RepeatingPages();
  const seenInPass = new Set(mine.flatMap((p) => p.ids.filter((id) => id !== null)));
  for await (const batch of paginate(r.options, seen.stats, resume, target)) {
    const entry = collectionsPageOf(batch, r.round, pass, seen.stats.pageSize);
    const before = seenInPass.size;
    for (const id of entry.ids) if (id !== null) seenInPass.add(id);
    repeating.add(entry.url, seenInPass.size > before || entry.ids.length === 0);
    seen.add(await r.checkpoint.addPage<JournalCollectionsPage>(entry, stagedBodyOf(batch)));
  }
}

/** The journal entry of a page of the collections list: each record's id, `number_of_images` and `modify_date`. */
function collectionsPageOf(
  batch: PageBatch,
  round: number,
  pass: number,
  pageSize: number,
): Unstaged<JournalCollectionsPage> {
  const records = batch.records as ({ id?: unknown; number_of_images?: unknown } | null)[];
  const micros = (record: unknown) =>
    record === null ? null : Number.isFinite(modifiedAt(record)) ? modifiedAt(record) : null;
  const wholeOrNull = (n: unknown) => (Number.isSafeInteger(n) ? (n as number) : null);
  return {
    type: 'collections-page',
    round,
    pass,
    offset: batch.source.offset,
    limit: batch.limit ?? pageSize,
    url: batch.source.url,
    count: batch.count,
    ids: records.map((r) => wholeOrNull(r?.id)),
    sizes: records.map((r) => wholeOrNull(r?.number_of_images)),
    modified: records.map(micros),
    at_end: batch.atEnd === true,
  };
}

/** Marks the round ended in the journal, tells of it, and returns the listing. */
async function endRound(
  r: Round,
  end: { status: number; expected: number; received: number; passes: number },
): Promise<CollectionsListing> {
  const { round } = r;
  await r.checkpoint.mark({ type: 'collections-end', round, passes: end.passes, status: end.status });
  const { status, expected, received, passes } = end;
  r.options.onEvent?.({ type: 'collections-end', url: r.seen.url.href, round, status, expected, received, passes });
  return r.seen.listing(status, passes);
}
