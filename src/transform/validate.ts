import { imageIssues } from '../schema/image-schema.js';
import type { PageBatch, Reject } from '../schema/row.js';
import { isValidRecord } from './check-record.js';

/** A page whose records were checked: valid records, and the rejects with their zod issues. */
export interface ValidBatch extends Omit<PageBatch, 'records'> {
  /** Records that match the schema. */
  records: Record<string, unknown>[];
  /** Records that break it. */
  rejects: Reject[];
}

/** Splits each page's records into valid records and rejects (raw record, page URL, zod issues); never throws on bad data. */
export async function* validate(source: AsyncIterable<PageBatch>): AsyncIterable<ValidBatch> {
  for await (const page of source) yield validatePage(page);
}

/** Validates one page's records. */
export function validatePage(page: PageBatch): ValidBatch {
  const records: Record<string, unknown>[] = [];
  const rejects: Reject[] = [];
  for (const raw of page.records) {
    if (isValidRecord(raw)) {
      records.push(raw);
      continue;
    }
    const issues = imageIssues(raw) ?? [{ path: [], message: 'rejected by the fast check but not by the schema' }];
    rejects.push({ url: page.source.url, record: raw, issues });
  }
  return { source: page.source, count: page.count, records, rejects };
}
