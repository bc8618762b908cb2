/**
 * The rejects of the staged pages, once each, in staging order, in batches: each with its served text and why the
 * schema refused it (the write's source after the records: replay-columns.ts).
 */
import type { Reject } from '../schema/row.js';
import type { Checkpoint } from './checkpoint.js';
import { PageCache } from './page-cache.js';
import type { RecordIndex } from './record-index.js';

/** Yields every reject the index holds once, `batchSize` at most at a time. */
export async function* replayRejects(
  index: RecordIndex,
  checkpoint: Checkpoint,
  batchSize: number,
): AsyncIterable<Reject[]> {
  const cache = new PageCache(checkpoint);
  let rejects: Reject[] = [];
  for (const [pageIndex, position] of index.rejectsInStagingOrder()) {
    const page = index.pages[pageIndex]!;
    const { records, texts } = await cache.get(page);
    const raw = records[position];
    // zod, loaded only when there are rejects to explain
    const { imageIssues } = await import('../schema/image-schema.js');
    rejects.push({ url: page.url, record: raw, text: texts!.get(position)!, issues: imageIssues(raw) ?? [] });
    if (rejects.length >= batchSize) {
      yield rejects;
      rejects = [];
    }
  }
  if (rejects.length > 0) yield rejects;
}
