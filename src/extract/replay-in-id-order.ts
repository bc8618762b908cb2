/**
 * Phase two's source: the staged records in ascending id order, then the rejects, in fixed-size batches.
 * Pages are read back through a small cache; the list is nearly in id order, so each page is read about once.
 */
import type { Reject } from '../schema/row.js';
import type { ValidBatch } from '../transform/validate.js';
import type { Checkpoint, JournalPage } from './checkpoint.js';
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
    records.push(page[position] as Record<string, unknown>);
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
    const results = await cache.get(page);
    const { imageIssues } = await import('../schema/image-schema.js'); // zod, loaded only when there are rejects to explain
    page.ids.forEach((id, position) => {
      if (id !== null) return;
      const raw = results[position];
      const rawId = (raw as { id?: unknown } | null)?.id;
      if (Number.isSafeInteger(rawId)) {
        if (!index.isReportedReject(rawId as number) || reported.has(rawId as number)) return;
        reported.add(rawId as number);
      }
      rejects.push({ url: page.url, record: raw, issues: imageIssues(raw) ?? [] });
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

/** A least-recently-used cache of parsed staged pages, bounded by the records it holds (pages are 1 to 1,000 records). */
class PageCache {
  private readonly pages = new Map<string, unknown[]>();
  private records = 0;
  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly maxRecords: number,
  ) {}

  async get(page: JournalPage): Promise<unknown[]> {
    const file = page.file!;
    let records = this.pages.get(file);
    if (records !== undefined) {
      this.pages.delete(file); // re-insert: Map order is recency
    } else {
      records = await this.checkpoint.readRecords(file);
      this.records += records.length;
      for (const [oldest, held] of this.pages) {
        if (this.records <= this.maxRecords) break;
        this.pages.delete(oldest);
        this.records -= held.length;
      }
    }
    this.pages.set(file, records);
    return records;
  }
}
