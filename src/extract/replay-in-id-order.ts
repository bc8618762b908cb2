/**
 * Phase two's source: the staged records in ascending id order, then the rejects, in fixed-size batches.
 * Pages are read back through a small cache; the list is nearly in id order, so each page is read about once. Records
 * keep the text they were served as where a value could change on the way (`extra`, rejects).
 */
import { attachRecordText } from '../schema/record-text.js';
import type { Reject } from '../schema/row.js';
import type { ValidBatch } from '../transform/validate.js';
import type { Checkpoint, JournalPage } from './checkpoint.js';
import { RecordTexts } from './record-texts.js';
import type { RecordIndex } from './record-index.js';

/** How replay reads the staging folder. */
export interface ReplayOptions {
  /** Rows per batch; fixed so that files depend only on the data. Default 1,000. */
  batchSize?: number;
  /** Records of parsed pages kept in memory (whole pages, at least one); default 5,000. */
  cacheRecords?: number;
}

/** Yields every valid record once, ascending by id, then every reject once, each batch at most `batchSize` long. */
export async function* replayInIdOrder(index: RecordIndex, checkpoint: Checkpoint, options: ReplayOptions = {}): AsyncIterable<ValidBatch> {
  const batchSize = options.batchSize ?? 1_000;
  const cache = new PageCache(checkpoint, options.cacheRecords ?? 5_000);
  let records: Record<string, unknown>[] = [];
  let first = 0;
  let n = 0;
  for (const [pageIndex, position] of index.inIdOrder()) {
    const page = await cache.get(index.pages[pageIndex]!);
    records.push(page.records[position] as Record<string, unknown>);
    if (records.length === batchSize) {
      yield batchOf(records, [], first);
      first = n + 1;
      records = [];
    }
    n++;
  }
  if (records.length > 0) yield batchOf(records, [], first);
  yield* rejectBatches(index, cache, n, batchSize);
}

async function* rejectBatches(index: RecordIndex, cache: PageCache, offset: number, batchSize: number): AsyncIterable<ValidBatch> {
  let rejects: Reject[] = [];
  const reported = new Set<number>();
  for (const page of index.pages) {
    if (!page.ids.includes(null)) continue;
    const { records, texts } = await cache.get(page);
    const { imageIssues } = await import('../schema/image-schema.js'); // zod, loaded only when there are rejects to explain
    page.ids.forEach((id, position) => {
      if (id !== null) return;
      const raw = records[position];
      const rawId = (raw as { id?: unknown } | null)?.id;
      if (Number.isSafeInteger(rawId)) {
        if (!index.isReportedReject(rawId as number) || reported.has(rawId as number)) return;
        reported.add(rawId as number);
      }
      rejects.push({ url: page.url, record: raw, text: texts!.get(position)!, issues: imageIssues(raw) ?? [] });
    });
    if (rejects.length >= batchSize) {
      yield batchOf([], rejects, offset);
      rejects = [];
    }
  }
  if (rejects.length > 0) yield batchOf([], rejects, offset);
}

function batchOf(records: Record<string, unknown>[], rejects: Reject[], offset: number): ValidBatch {
  return { source: { url: 'staging', offset }, count: records.length, records, rejects };
}

/** A staged page read back: its records, and the served text of each of its rejects by position. */
interface CachedPage {
  records: unknown[];
  texts: Map<number, string> | undefined;
}

/**
 * A least-recently-used cache of parsed staged pages, bounded by the records it holds (pages are 1 to 1,000 records).
 * A page that holds records with keys the schema does not know, or rejects, is scanned for their served text as it
 * is read: a valid record carries its text on itself (for `extra`), a reject's is kept by position.
 */
class PageCache {
  private readonly pages = new Map<string, CachedPage>();
  private records = 0;
  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly maxRecords: number,
  ) {}

  async get(page: JournalPage): Promise<CachedPage> {
    const file = page.file!;
    let cached = this.pages.get(file);
    if (cached !== undefined) {
      this.pages.delete(file); // re-insert: Map order is recency
    } else {
      cached = read(page, await this.checkpoint.readPage(file));
      this.records += cached.records.length;
      for (const [oldest, held] of this.pages) {
        if (this.records <= this.maxRecords) break;
        this.pages.delete(oldest);
        this.records -= held.records.length;
      }
    }
    this.pages.set(file, cached);
    return cached;
  }
}

/** A page's records, with the served text attached where it is needed. */
function read(page: JournalPage, { body, records }: { body: Buffer; records: unknown[] }): CachedPage {
  // A journal of an earlier version does not say which records have unknown keys: take every valid record's text.
  const extra = page.extra ?? page.ids.flatMap((id, position) => (id === null ? [] : [position]));
  const rejects = page.ids.includes(null);
  if (extra.length === 0 && !rejects) return { records, texts: undefined };
  const texts = new RecordTexts(body);
  for (const position of extra) attachRecordText(records[position] as object, texts.at(position));
  const rejectTexts = new Map<number, string>();
  page.ids.forEach((id, position) => {
    if (id === null) rejectTexts.set(position, texts.at(position));
  });
  return { records, texts: rejectTexts };
}
