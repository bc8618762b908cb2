/**
 * An interim source of collection records for the collections table: `/api/collections/` paged once with the images'
 * pager and HTTP client, the last copy of each id kept with the text it was served as, then yielded in ascending id
 * order. The list is small (~13,400 records of ~3 kB on neurovault.org), so it is held in memory; the run will take
 * the staged, reconciled source of the collections phase in its place, which yields the same batches.
 */
import type { PageBatch } from '../schema/row.js';
import { attachRecordText } from '../schema/record-text.js';
import { DEFAULT_BASE_URL } from './defaults.js';
import { ExtractError } from './extract-error.js';
import type { ExtractEvent } from './extract-events.js';
import { collectionsUrlOf } from './page-url.js';
import { paginate, type PaginateOptions } from './paginate.js';
import { RecordTexts } from './record-texts.js';
import { redactUrl } from './redact-url.js';

/** The collections a service lists, or why there are none: its list answered 404 (a copy of the images alone). */
export type CollectionListing =
  | {
      /** The collections list, credentials masked. */
      url: string;
      /** The records as served, each id once (its last copy), ascending by id, in batches; then any without an id. */
      batches: AsyncIterable<PageBatch>;
    }
  | {
      /** The collections list, credentials masked. */
      url: string;
      /** Why there are none, one line. */
      absent: string;
    };

/** Records per batch yielded. */
const BATCH_SIZE = 1000;

/**
 * Pages the collections list of `options.baseUrl` once (retries, timeouts and same-host rules as for the images) and
 * holds its records; a 404 from the list gives the reason instead. Page events are not passed on: the images' progress
 * counts pages. A record without a usable id cannot be keyed: each distinct one is kept once, after the others.
 */
export async function listCollections(options: PaginateOptions = {}): Promise<CollectionListing> {
  const listUrl = collectionsUrlOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const url = redactUrl(listUrl.href);
  const byId = new Map<number, object>();
  const unkeyed = new Map<string, unknown>();
  const { onEvent } = options;
  const passOn = (event: ExtractEvent): void => {
    if (event.type !== 'page') onEvent?.(event);
  };
  try {
    for await (const page of paginate({ ...options, listUrl: listUrl.href, onEvent: passOn })) {
      const texts = page.body === undefined ? undefined : new RecordTexts(page.body);
      const textOf =
        texts !== undefined && texts.length === page.records.length ? (i: number) => texts.at(i) : undefined;
      page.records.forEach((raw, i) => {
        const text = textOf?.(i);
        const id = (raw as { id?: unknown } | null)?.id;
        if (typeof raw === 'object' && raw !== null && text !== undefined) attachRecordText(raw, text);
        if (typeof raw === 'object' && raw !== null && Number.isSafeInteger(id) && (id as number) >= 0) {
          byId.delete(id as number); // the last copy served is kept
          byId.set(id as number, raw);
        } else unkeyed.set(text ?? JSON.stringify(raw), raw);
      });
    }
  } catch (error) {
    if (error instanceof ExtractError && error.status === 404) {
      return { url, absent: `${url} answered 404: the service lists no collections, so there is no collections table` };
    }
    throw error;
  }
  const ids = [...byId.keys()].sort((a, b) => a - b);
  const records = [...ids.map((id) => byId.get(id)!), ...unkeyed.values()];
  return { url, batches: inBatches(url, records) };
}

async function* inBatches(url: string, records: readonly unknown[]): AsyncIterable<PageBatch> {
  for (let offset = 0; offset < records.length; offset += BATCH_SIZE) {
    const batch = records.slice(offset, offset + BATCH_SIZE);
    yield { source: { url, offset }, count: records.length, records: batch };
  }
}
