/**
 * The collections table's source: the collection records served, from the staging folder, each id once (the newest
 * copy), ascending by id, in fixed-size batches, each record with the JSON text it was served as.
 */
import { attachRecordText } from '../../schema/record-text.js';
import type { ValidBatch } from '../../transform/validate.js';
import type { Checkpoint } from '../staging/checkpoint.js';
import { modifiedAt } from '../staging/modified-at.js';
import type { CollectionsListing } from './page-collections.js';
import { resultSpans } from '../../text/raw-json.js';
import { parseJsonBytes } from '../paging/parse-json-bytes.js';
import { redactUrl } from '../paging/redact-url.js';

/** How replayCollections reads the staging folder. */
export interface ReplayCollectionsOptions {
  /** Records per batch; default 1,000. */
  batchSize?: number;
  /** Collections left out: those found private or deleted while the run read them; default none. */
  exclude?: Iterable<number>;
}

/**
 * Yields every listed collection once, ascending by id, as served, then each distinct record without a usable id once
 * (the table's check makes those rejects); nothing when the service has no collections list.
 */
export async function* replayCollections(
  listing: Pick<CollectionsListing, 'pages' | 'url'>,
  checkpoint: Checkpoint,
  options: ReplayCollectionsOptions = {},
): AsyncIterable<ValidBatch> {
  const batchSize = options.batchSize ?? 1_000;
  const url = redactUrl(listing.url); // where the records came from: a reject names it
  const served = await servedToReplay(listing, checkpoint, new Set(options.exclude ?? []));
  let batch: Record<string, unknown>[] = [];
  let offset = 0;
  for (const bytes of served) {
    const record = parseJsonBytes(bytes) as Record<string, unknown>;
    attachRecordText(record, bytes.toString('utf8'));
    batch.push(record);
    if (batch.length === batchSize) {
      yield { source: { url, offset }, count: batch.length, records: batch, rejects: [] };
      offset += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) yield { source: { url, offset }, count: batch.length, records: batch, rejects: [] };
}

/**
 * The served bytes of each listed collection's latest record (ascending by id, `exclude` left out), then of each
 * distinct record without a usable id. Each page is read once: a list served in no order would otherwise be read again
 * at every jump between pages, and a page's parsed records weigh far more than its bytes.
 */
async function servedToReplay(
  listing: Pick<CollectionsListing, 'pages'>,
  checkpoint: Checkpoint,
  exclude: ReadonlySet<number>,
): Promise<Buffer[]> {
  const kept = new Map<number, { bytes: Buffer; modified: number }>();
  const unkeyed = new Map<string, Buffer>(); // by content
  for (const page of listing.pages) {
    const { body, records } = await checkpoint.readPage(page.file);
    const spans = resultSpans(body);
    page.ids.forEach((id, position) => {
      const bytes = body.subarray(spans[position]!.start, spans[position]!.end);
      if (id === null) {
        const content = JSON.stringify(records[position]);
        if (!unkeyed.has(content)) unkeyed.set(content, bytes);
        return;
      }
      if (exclude.has(id)) return;
      const modified = modifiedAt(records[position]);
      const before = kept.get(id);
      if (before === undefined || modified >= before.modified) kept.set(id, { bytes, modified });
    });
  }
  const ordered = [...kept.keys()].sort((a, b) => a - b).map((id) => kept.get(id)!.bytes);
  return [...ordered, ...unkeyed.values()];
}
