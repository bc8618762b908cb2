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
import { type FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { onStagingFile, spillFileOf } from '../staging/staging-files.js';

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
  const path = join(checkpoint.dir, spillFileOf('collections'));
  const onSpill: OnSpill = (action, call) => onStagingFile(checkpoint.dir, path, action, call);
  const spill = await onSpill('write to', () => open(path, 'w+'));
  try {
    const served = await servedToReplay(listing, checkpoint, new Set(options.exclude ?? []), spill, onSpill);
    let batch: Record<string, unknown>[] = [];
    let offset = 0;
    for await (const bytes of readSpans(spill, served, onSpill)) {
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
  } finally {
    await spill.close();
    await onSpill('remove', () => rm(path, { force: true }));
  }
}

/** A call on the spill file, its error the staging's one line naming the file (onStagingFile). */
type OnSpill = <T>(action: string, call: () => Promise<T>) => Promise<T>;

/** Where a record's served bytes are in the spill file. */
interface Span {
  at: number;
  length: number;
}

/**
 * Where the served bytes of each listed collection's latest record are (ascending by id, `exclude` left out), then of
 * each distinct record without a usable id. Each page is read once and its records that may be kept are copied to the
 * spill file: a list served in no order would otherwise be read again at every jump between pages, and holding every
 * page's bytes until the write would make the run's memory grow with the collections.
 */
async function servedToReplay(
  listing: Pick<CollectionsListing, 'pages'>,
  checkpoint: Checkpoint,
  exclude: ReadonlySet<number>,
  spill: FileHandle,
  onSpill: OnSpill,
): Promise<Span[]> {
  const kept = new Map<number, Span & { modified: number }>();
  const unkeyed = new Map<string, Span>(); // by content
  let end = 0;
  for (const page of listing.pages) {
    // Each record is parsed on its own, for its date (or its content), so that only one is held at a time: a page of
    // collections parsed at once is tens of MB of objects, the run's peak memory.
    const body = await checkpoint.readBody(page.file);
    const spans = resultSpans(body);
    const served = (position: number) => body.subarray(spans[position]!.start, spans[position]!.end);
    const record = (position: number) => parseJsonBytes(served(position));
    const copied: Buffer[] = [];
    const copy = (position: number): Span => {
      const bytes = served(position);
      copied.push(bytes);
      end += bytes.length;
      return { at: end - bytes.length, length: bytes.length };
    };
    page.ids.forEach((id, position) => {
      if (id === null) {
        const content = JSON.stringify(record(position));
        if (!unkeyed.has(content)) unkeyed.set(content, copy(position));
        return;
      }
      if (exclude.has(id)) return;
      const modified = modifiedAt(record(position));
      const before = kept.get(id);
      if (before === undefined || modified >= before.modified) kept.set(id, { ...copy(position), modified });
    });
    // writeFile writes every byte from where the file is, or fails: a write may write part of them on a full disk.
    await onSpill('write to', () => spill.writeFile(Buffer.concat(copied)));
  }
  const ordered = [...kept.keys()].sort((a, b) => a - b).map((id) => kept.get(id)!);
  return [...ordered, ...unkeyed.values()];
}

/** Bytes read in one call at most, of spans that lie one after the other in the spill file. */
const READ_BYTES = 1 << 20;

/** The bytes of each span, in order, reading spans that follow one another in the file together. */
async function* readSpans(spill: FileHandle, spans: Span[], onSpill: OnSpill): AsyncIterable<Buffer> {
  for (let first = 0; first < spans.length;) {
    let last = first + 1;
    const at = spans[first]!.at;
    while (last < spans.length && spans[last]!.at === spans[last - 1]!.at + spans[last - 1]!.length) {
      if (spans[last]!.at + spans[last]!.length - at > READ_BYTES) break;
      last++;
    }
    const length = spans[last - 1]!.at + spans[last - 1]!.length - at;
    const bytes = Buffer.alloc(length);
    await onSpill('read', () => spill.read(bytes, 0, length, at));
    for (let n = first; n < last; n++) yield bytes.subarray(spans[n]!.at - at, spans[n]!.at - at + spans[n]!.length);
    first = last;
  }
}
