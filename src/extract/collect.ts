/**
 * Phase one of a run: page the list into the staging folder, pass after pass, until every record the service
 * counts is there or a pass adds nothing. Resumes whatever an earlier process of the same run left.
 */
import { createHash } from 'node:crypto';
import { parseTimestampMicros } from '../schema/timestamp.js';
import { checkRecord } from '../transform/check-record.js';
import type { PageBatch } from '../schema/row.js';
import type { Checkpoint, JournalPage, RejectKey } from './checkpoint.js';
import { ExtractError } from './extract-error.js';
import { IdMap } from './id-map.js';
import { PageCache } from './page-cache.js';
import { newExtractStats, paginate, type ExtractStats, type PaginateOptions, type PaginateResume } from './paginate.js';
import { MAX_PAGE_RECORDS, RecordIndex } from './record-index.js';

/** How far to go for completeness. */
export interface CollectOptions extends PaginateOptions {
  /** Passes over the list at most (the first included); default 3. */
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

/** What phase one gathered. */
export interface Collected {
  /** The records by id, pointing into the staging folder. */
  index: RecordIndex;
  /** Each pass made. */
  passes: PassSummary[];
  /** Records the service counts: `count` of the last page fetched. */
  expected: number;
  /** `count` of the run's first page. */
  countAtStart: number;
  /** Extraction totals. */
  stats: ExtractStats;
  /** Ids served in copies that differed while the list was paged (the newer copy is kept), in the order found. */
  conflicts: readonly number[];
}

/** Pages the list into `checkpoint` until it is complete, no pass adds a record, or `maxPasses` passes were made. */
export async function collect(options: CollectOptions, checkpoint: Checkpoint, stats: ExtractStats = newExtractStats()): Promise<Collected> {
  const maxPasses = Math.max(1, options.maxPasses ?? 3);
  const index = new RecordIndex();
  const passes: PassSummary[] = [];
  const earlier = checkpoint.entries;
  const ended = new Set(earlier.flatMap((e) => (e.type === 'pass-end' ? [e.pass] : [])));
  const earlierPages = earlier.filter((e): e is JournalPage => e.type === 'page');
  const summaries = new Map<number, PassSummary>();
  const summaryOf = (pass: number) => {
    let s = summaries.get(pass);
    if (s === undefined) summaries.set(pass, (s = { pass, added: 0, duplicates: 0, countMin: Infinity, countMax: 0, countFirst: NaN, clean: true }));
    return s;
  };
  // Duplicates are counted within a pass: a later pass sees every record again by design.
  // id → the last pass that saw it: a byte each (a pass past 254 goes to the fallback Map)
  const lastPassOf = new IdMap(Uint8Array);
  const lastPassOfContent = new Map<string, number>(); // the same for rejects told apart by their content
  /** Adds a page to the index and its pass's summary; resolves to whether it held a record new to the pass. */
  const account = (page: JournalPage): boolean => {
    const { added } = index.add(page);
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
  for (const page of earlierPages) account(page);
  const cache = new PageCache(checkpoint);
  let countAtStart = earlierPages[0]?.count;
  let expected = earlierPages.at(-1)?.count ?? 0;

  for (let pass = 1; pass <= maxPasses; pass++) {
    if (!ended.has(pass)) {
      const mine = earlierPages.filter((p) => p.pass === pass);
      const resume: PaginateResume | undefined =
        mine.length === 0 ? undefined : { limit: mine[0]!.limit, count: Math.max(...mine.map((p) => p.count)), done: new Set(mine.map((p) => p.offset)) };
      options.onEvent?.({ type: 'pass-start', pass, maxPasses, expected, received: index.received, missing: Math.max(0, expected - index.received), pagesDone: mine.length, recordsDone: mine.reduce((n, p) => n + p.ids.length, 0) });
      const passStats = newExtractStats();
      let repeating: JournalPage[] = [];
      for await (const batch of paginate(options, passStats, resume)) {
        const page = await keep(checkpoint, index, cache, pass, batch, passStats.pageSize);
        repeating = account(page) ? [] : [...repeating, page];
        if (repeating.length >= MAX_REPEATING_PAGES) throw endlessList(repeating);
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
    if (!ended.has(pass)) options.onEvent?.({ type: 'pass-end', pass, added: summary.added, duplicates: summary.duplicates, expected, received: index.received, missing: Math.max(0, expected - index.received), clean: summary.clean });
    const complete = index.received >= expected;
    if (complete && summary.clean) break;
    if (pass > 1 && summary.added === 0) break;
  }
  stats.countAtStart = countAtStart ?? 0;
  stats.countAtEnd = expected;
  const conflicts = index.conflicts;
  if (conflicts.length > 0) options.onEvent?.({ type: 'conflicts', count: conflicts.length, firstIds: conflicts.slice(0, MAX_CONFLICT_IDS) });
  return { index, passes, expected, countAtStart: countAtStart ?? 0, stats, conflicts };
}

/** Conflicting ids named in the event and the manifest; the count covers all. */
export const MAX_CONFLICT_IDS = 20;

/** Pages in a row that may hold only records the pass already has before the list is taken to be endless. */
const MAX_REPEATING_PAGES = 20;

function endlessList(pages: JournalPage[]): ExtractError {
  const first = pages[0]!;
  return new ExtractError({ code: 'IMPLAUSIBLE_COUNT', url: first.url, reason: `and the ${pages.length - 1} pages after it held only records already received in ` + `this pass: the list repeats itself endlessly`, retryable: false });
}

/**
 * Stages one fetched page: its body only when it holds something the run keeps, and always its journal line. The body
 * is the page as served (paginate joins a split page's body from its halves' record texts), so the files are written
 * from the values as served; re-serialising the parsed records is left for a batch without a body, which paginate
 * never gives for a page with records.
 */
async function keep(checkpoint: Checkpoint, index: RecordIndex, cache: PageCache, pass: number, batch: PageBatch, limit: number): Promise<JournalPage> {
  if (batch.records.length > MAX_PAGE_RECORDS) {
    throw new ExtractError({ code: 'BAD_BODY', url: batch.source.url, reason: `returned ${batch.records.length} records, more than the ${MAX_PAGE_RECORDS} a page may hold`, retryable: false });
  }
  const ids: (number | null)[] = [];
  const rejected: RejectKey[] = [];
  const extra: number[] = [];
  batch.records.forEach((record, position) => {
    const check = checkRecord(record);
    if (check !== 'invalid') {
      ids.push((record as Record<string, unknown>)['id'] as number);
      if (check === 'valid-with-extra') extra.push(position);
      return;
    }
    ids.push(null);
    rejected.push(rejectKey(record));
  });
  const { replaced, conflicts } = await compareRepeats(index, cache, batch.records, ids);
  const fresh = index.countNew(ids, rejected) > 0 || replaced.length > 0;
  const body = fresh ? (batch.body ?? JSON.stringify({ count: batch.count, next: null, previous: null, results: batch.records })) : undefined;
  const { source, count } = batch;
  const request = { pass, offset: source.offset, limit: batch.limit ?? limit, url: source.url, count };
  const changes = { ...(replaced.length > 0 ? { replaced } : {}), ...(conflicts.length > 0 ? { conflicts } : {}) };
  return checkpoint.addPage({ ...request, ids, rejected, extra, ...changes, at_end: batch.atEnd === true }, body);
}

/** How a record that broke the schema is told apart from others: its id when usable, else a hash of its content. */
function rejectKey(record: unknown): RejectKey {
  const id = (record as { id?: unknown } | null)?.id;
  if (Number.isSafeInteger(id)) return id as number;
  return `sha256:${createHash('sha256').update(JSON.stringify(record)).digest('hex')}`;
}

/**
 * Compares each valid record the run already has (from an earlier page, or earlier on this page) with the copy it
 * kept: a copy that differs is a conflict, and it replaces the kept one when its `modify_date` is not older (the
 * later one seen wins a tie). The real list has no ORDER BY and records change while it is paged.
 */
async function compareRepeats(index: RecordIndex, cache: PageCache, records: readonly unknown[], ids: readonly (number | null)[]): Promise<{ replaced: number[]; conflicts: number[] }> {
  const replaced: number[] = [];
  const conflicts: number[] = [];
  const keptInPage = new Map<number, number>();
  for (let position = 0; position < ids.length; position++) {
    const id = ids[position];
    if (id === null || id === undefined) continue;
    let kept: unknown;
    const inPage = keptInPage.get(id);
    if (inPage !== undefined) kept = records[inPage];
    else {
      const location = index.locate(id);
      if (location === undefined) {
        keptInPage.set(id, position);
        continue;
      }
      kept = (await cache.get(location[0])).records[location[1]];
    }
    const record = records[position];
    if (JSON.stringify(kept) === JSON.stringify(record)) continue;
    if (!conflicts.includes(id)) conflicts.push(id);
    if (modifiedAt(record) >= modifiedAt(kept)) {
      replaced.push(position);
      keptInPage.set(id, position);
    }
  }
  return { replaced, conflicts };
}

/** A record's `modify_date` in microseconds, for ordering copies; a copy without one is the oldest. */
function modifiedAt(record: unknown): number {
  const text = (record as { modify_date?: unknown }).modify_date;
  const micros = typeof text === 'string' ? parseTimestampMicros(text) : undefined;
  return micros === undefined ? -Infinity : Number(micros);
}

function mergeStats(total: ExtractStats, pass: ExtractStats): void {
  total.pagesFetched += pass.pagesFetched;
  total.retries += pass.retries;
  total.pageSize ||= pass.pageSize;
  total.countMin = Math.min(total.countMin, pass.countMin);
  total.countMax = Math.max(total.countMax, pass.countMax);
  // A record the server cannot serve is skipped again by every pass: report each offset once.
  total.skippedOffsets = [...new Set([...total.skippedOffsets, ...pass.skippedOffsets])].sort((a, b) => a - b);
}
