/**
 * The rejects of the staged pages, once each and in the order of their keys, with their served text and why the schema
 * refused them: the write's source after the records (replay-columns.ts). The file depends only on the records.
 */
import { IMAGES } from '../../schema/columns.js';
import type { Reject } from '../../schema/row.js';
import { inexactNumberIssues } from '../../transform/inexact-numbers.js';
import type { Checkpoint } from './checkpoint.js';
import type { RejectKey } from './journal.js';
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
  for (const [key, pageIndex, position] of index.rejectsInKeyOrder()) {
    const page = index.pages[pageIndex]!;
    const { records, texts } = await cache.get(page);
    const raw = records[position];
    // zod, loaded only when there are rejects to explain
    const { imageIssues } = await import('../../schema/image-schema.js');
    const url = rejectUrl(page.url, key);
    const text = texts!.get(position)!;
    // a record the schema takes was refused for a number its text says otherwise than its value (save-page.ts)
    const issues = imageIssues(raw) ?? inexactNumberIssues(text, IMAGES);
    rejects.push({ url, record: raw, text, issues });
    if (rejects.length >= batchSize) {
      yield rejects;
      rejects = [];
    }
  }
  if (rejects.length > 0) yield rejects;
}

/** The list a reject is of, and the paths of the pages it may be found on (a path prefix before `/api/` kept). */
const REJECT_LISTS = {
  images: { pages: /\/api\/(?:collections\/[^/]+\/)?images\/.*$/, list: '/api/images/' },
  collections: { pages: /\/api\/collections\/.*$/, list: '/api/collections/' },
} as const;

/**
 * Where a reject can be fetched alone: its own URL under its list (the images', or the collections') when its id is
 * usable, else the list's; from the URL of the page it was found on (for an image, of the image list or of a
 * collection's own list).
 */
export function rejectUrl(pageUrl: string, key: RejectKey, of: keyof typeof REJECT_LISTS = 'images'): string {
  const url = new URL(pageUrl);
  url.pathname = url.pathname.replace(REJECT_LISTS[of].pages, REJECT_LISTS[of].list);
  url.search = '';
  url.hash = '';
  return typeof key === 'number' ? `${url.href}${key}/` : url.href;
}
