import { RecordTexts } from '../extract/record-texts.js';
import { imageIssues } from '../schema/image-schema.js';
import { attachRecordText } from '../schema/record-text.js';
import type { PageBatch, Reject } from '../schema/row.js';
import { checkRecord } from './check-record.js';

/** A page whose records were checked: valid records, and the rejects with their zod issues. */
export interface ValidBatch extends Omit<PageBatch, 'records'> {
  /** Records that match the schema. */
  records: Record<string, unknown>[];
  /** Records that break it. */
  rejects: Reject[];
}

/**
 * Splits each page's records into valid records and rejects (raw record, page URL, zod issues); never throws on bad
 * data. Where the page has its body, a reject keeps its served text, and so does a valid record with keys the schema
 * does not know (for `extra`); the body is scanned only for a page that holds such a record.
 */
export async function* validate(source: AsyncIterable<PageBatch>): AsyncIterable<ValidBatch> {
  for await (const page of source) yield validatePage(page);
}

/** Validates one page's records. */
export function validatePage(page: PageBatch): ValidBatch {
  const records: Record<string, unknown>[] = [];
  const rejects: Reject[] = [];
  let texts: RecordTexts | null | undefined; // null: the page has no body, or one that does not hold these records
  const textAt = (position: number): string | undefined => {
    if (texts === undefined) {
      texts = page.body === undefined ? null : new RecordTexts(page.body);
      if (texts !== null && texts.length !== page.records.length) texts = null;
    }
    return texts?.at(position);
  };
  page.records.forEach((raw, position) => {
    const check = checkRecord(raw);
    if (check !== 'invalid') {
      const record = raw as Record<string, unknown>;
      const text = check === 'valid-with-extra' ? textAt(position) : undefined;
      if (text !== undefined) attachRecordText(record, text);
      records.push(record);
      return;
    }
    const issues = imageIssues(raw) ?? [{ path: [], message: 'rejected by the fast check but not by the schema' }];
    const text = textAt(position);
    const reject: Reject = { url: page.source.url, record: raw, issues };
    if (text !== undefined) reject.text = text;
    rejects.push(reject);
  });
  return { source: page.source, count: page.count, records, rejects };
}
