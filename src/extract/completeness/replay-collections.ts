/**
 * The collections table's source: the collection records served, from the staging folder, each id once (the newest
 * copy), ascending by id, in fixed-size batches, each record with the JSON text it was served as.
 */
import { attachRecordText } from '../../schema/record-text.js';
import type { ValidBatch } from '../../transform/validate.js';
import type { Checkpoint } from '../staging/checkpoint.js';
import type { JournalCollectionsPage } from '../staging/journal.js';
import { modifiedAt } from '../staging/modified-at.js';
import type { CollectionsListing } from './page-collections.js';
import { RecordTexts } from '../../schema/record-texts.js';
import { redactUrl } from '../paging/redact-url.js';

/** How replayCollections reads the staging folder. */
export interface ReplayCollectionsOptions {
  /** Records per batch; default 1,000. */
  batchSize?: number;
  /** Collections left out: those found private or deleted while the run read them; default none. */
  exclude?: Iterable<number>;
  /**
   * Parsed records kept in memory (whole pages, at least one); default 2,000: a collection record is ~3 kB served and
   * far more parsed, and NeuroVault lists ~13,400 collections.
   */
  cacheRecords?: number;
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
  const places = await placesToReplay(listing, checkpoint, new Set(options.exclude ?? []));
  const recordsOf = cachedPageReader(checkpoint, options.cacheRecords ?? 2_000);
  let batch: Record<string, unknown>[] = [];
  let offset = 0;
  for (const { page, position } of places) {
    batch.push((await recordsOf(page))[position] as Record<string, unknown>);
    if (batch.length === batchSize) {
      yield { source: { url, offset }, count: batch.length, records: batch, rejects: [] };
      offset += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) yield { source: { url, offset }, count: batch.length, records: batch, rejects: [] };
}

/** Where a record to replay is held: its page and its position in it. */
interface Place {
  page: JournalCollectionsPage;
  position: number;
}

/**
 * Where each listed collection's latest record is (ascending by id, `exclude` left out), then each distinct record
 * without a usable id.
 */
async function placesToReplay(
  listing: Pick<CollectionsListing, 'pages'>,
  checkpoint: Checkpoint,
  exclude: ReadonlySet<number>,
): Promise<Place[]> {
  const kept = new Map<number, Place & { modified: number }>();
  const unkeyed = new Map<string, Place>(); // by content
  for (const page of listing.pages) {
    const { records } = await checkpoint.readPage(page.file);
    page.ids.forEach((id, position) => {
      if (id === null) {
        const content = JSON.stringify(records[position]);
        if (!unkeyed.has(content)) unkeyed.set(content, { page, position });
        return;
      }
      if (exclude.has(id)) return;
      const modified = modifiedAt(records[position]);
      const before = kept.get(id);
      if (before === undefined || modified >= before.modified) kept.set(id, { page, position, modified });
    });
  }
  const ordered = [...kept.keys()].sort((a, b) => a - b).map((id) => kept.get(id)!);
  return [...ordered, ...unkeyed.values()];
}

/** Reads a staged page's records (each with its text attached), keeping about `cacheRecords` of them in memory. */
function cachedPageReader(
  checkpoint: Checkpoint,
  cacheRecords: number,
): (page: JournalCollectionsPage) => Promise<unknown[]> {
  const cache = new Map<string, unknown[]>();
  let cached = 0;
  return async (page) => {
    let records = cache.get(page.file);
    if (records !== undefined) return records;
    const read = await checkpoint.readPage(page.file);
    const texts = new RecordTexts(read.body);
    records = read.records;
    records.forEach((record, position) => {
      if (typeof record === 'object' && record !== null) attachRecordText(record, texts.at(position));
    });
    for (const [file, held] of cache) {
      if (cached + records.length <= cacheRecords) break;
      cache.delete(file);
      cached -= held.length;
    }
    cache.set(page.file, records);
    cached += records.length;
    return records;
  };
}
