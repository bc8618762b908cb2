/**
 * Phase two's source: the staged records in ascending id order, then the rejects, in fixed-size batches.
 * Pages are read back through a small cache; the list is nearly in id order, so each page is read about once. Records
 * keep the text they were served as where a value could change on the way (`extra`, rejects).
 */
import type { Reject } from '../schema/row.js';
import type { ValidBatch } from '../transform/validate.js';
import type { Checkpoint } from './checkpoint.js';
import { PageCache } from './page-cache.js';
import type { RecordIndex } from './record-index.js';

/** How replay reads the staging folder. */
export interface ReplayOptions {
  /** Rows per batch; fixed so that files depend only on the data. Default 1,000. */
  batchSize?: number;
  /** Records of parsed pages kept in memory (whole pages, at least one); default 5,000. */
  cacheRecords?: number;
}

/** Yields every valid record once, ascending by id, then every reject once, each batch at most `batchSize` long. */
export async function* replayInIdOrder(
  index: RecordIndex,
  checkpoint: Checkpoint,
  options: ReplayOptions = {},
): AsyncIterable<ValidBatch> {
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

async function* rejectBatches(
  index: RecordIndex,
  cache: PageCache,
  offset: number,
  batchSize: number,
): AsyncIterable<ValidBatch> {
  let rejects: Reject[] = [];
  for (const [pageIndex, position] of index.rejectsInStagingOrder()) {
    const page = index.pages[pageIndex]!;
    const { records, texts } = await cache.get(page);
    const raw = records[position];
    // zod, loaded only when there are rejects to explain
    const { imageIssues } = await import('../schema/image-schema.js');
    rejects.push({ url: page.url, record: raw, text: texts!.get(position)!, issues: imageIssues(raw) ?? [] });
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
