/**
 * Stages one fetched page of image records: its journal line always, its body when it holds something the run keeps. A
 * copy of a record the run already has is compared with the kept one, as the lists have no order and records change.
 */
import { createHash } from 'node:crypto';
import type { PageBatch } from '../../schema/row.js';
import { IMAGES } from '../../schema/columns.js';
import { checkRecord } from '../../transform/check-record.js';
import { inexactRecordPositions } from '../../transform/inexact-numbers.js';
import type { Checkpoint } from './checkpoint.js';
import type { JournalCollectionPage, JournalPage, RejectKey, StagedPage } from './journal.js';
import { collectionRuns, packagesOf } from './collection-runs.js';
import { ExtractError } from '../paging/extract-error.js';
import { stagedBodyOf } from '../paging/join-page-bodies.js';
import { modifiedAt } from './modified-at.js';
import type { PageCache } from './page-cache.js';
import { MAX_PAGE_RECORDS, type RecordIndex } from './record-index.js';

/** Where a page belongs: a pass over the image list, or a reading of one collection's list. */
export type PagePlace =
  Pick<JournalPage, 'type' | 'pass' | 'skipped'> | Pick<JournalCollectionPage, 'type' | 'collection' | 'attempt'>;

/**
 * Stages a page and resolves to its journal line (not yet added to `index`). The body is the page as served
 * (paginate joins a split page's body from its halves' record texts), so the files are written from the values as
 * served; re-serialising the parsed records is left for a batch without a body, which paginate never gives for a page
 * with records. A page of the image list also records each record's collection and the NIDM packages it names.
 */
export async function savePage(
  checkpoint: Checkpoint,
  index: RecordIndex,
  cache: PageCache,
  place: PagePlace,
  batch: PageBatch,
  limit: number,
): Promise<StagedPage> {
  if (batch.records.length > MAX_PAGE_RECORDS) {
    const reason = `returned ${batch.records.length} records, more than the ${MAX_PAGE_RECORDS} a page may hold`;
    throw new ExtractError({ code: 'BAD_BODY', kind: 'too-many-records', url: batch.source.url, reason });
  }
  const { ids, rejected, extra } = checkRecords(batch);
  const { replaced, conflicts } = await compareRepeats(index, cache, batch.records, ids);
  const fresh = index.countNew(ids, rejected) > 0 || replaced.length > 0;
  const body = fresh ? stagedBodyOf(batch) : undefined;
  const { source, count } = batch;
  const request = { offset: source.offset, limit: batch.limit ?? limit, url: source.url, count };
  const changes = { ...(replaced.length > 0 ? { replaced } : {}), ...(conflicts.length > 0 ? { conflicts } : {}) };
  const entry = { ...place, ...request, ids, rejected, extra, ...changes, at_end: batch.atEnd === true };
  const { records, bodyText } = batch; // bodyText is the text of batch.body, which is what is staged when it is defined
  if (entry.type === 'collection-page')
    return checkpoint.addPage<JournalCollectionPage>(entry, body, records, bodyText);
  const packages = packagesOf(records);
  const where = { collections: collectionRuns(records), ...(packages.length > 0 ? { packages } : {}) };
  return checkpoint.addPage<JournalPage>({ ...entry, ...where }, body, records, bodyText);
}

/**
 * Each record of a page checked: its id (null for a record that broke the schema, or whose served text has a number
 * its column would not hold exactly: inexact-numbers.ts), the rejects' keys, and the positions of the valid records
 * with keys the schema does not know.
 */
function checkRecords({ records, body, bodyText }: PageBatch): {
  ids: (number | null)[];
  rejected: RejectKey[];
  extra: number[];
} {
  const ids: (number | null)[] = [];
  const rejected: RejectKey[] = [];
  const extra: number[] = [];
  const inexact = inexactRecordPositions(body, records.length, IMAGES, bodyText);
  records.forEach((record, position) => {
    const check = inexact.has(position) ? 'invalid' : checkRecord(record);
    if (check !== 'invalid') {
      ids.push((record as Record<string, unknown>)['id'] as number);
      if (check === 'valid-with-extra') extra.push(position);
      return;
    }
    ids.push(null);
    rejected.push(rejectKey(record));
  });
  return { ids, rejected, extra };
}

/** How a record that broke the schema is told apart from others: its id when usable, else a hash of its content. */
export function rejectKey(record: unknown): RejectKey {
  const id = (record as { id?: unknown } | null)?.id;
  if (Number.isSafeInteger(id)) return id as number;
  return `sha256:${createHash('sha256').update(JSON.stringify(record)).digest('hex')}`;
}

/**
 * Compares each valid record the run already has (from an earlier page, or earlier on this page) with the copy it
 * kept: a copy that differs is a conflict, and it replaces the kept one when its `modify_date` is not older (the
 * later one seen wins a tie).
 */
async function compareRepeats(
  index: RecordIndex,
  cache: PageCache,
  records: readonly unknown[],
  ids: readonly (number | null)[],
): Promise<{ replaced: number[]; conflicts: number[] }> {
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
