import { RecordTexts } from '../schema/record-texts.js';
import { IMAGES } from '../schema/columns.js';
import { recordIssues } from '../schema/image-schema.js';
import { attachRecordText, recordTextOf } from '../schema/record-text.js';
import type { PageBatch, Reject } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { checkRecord } from './check-record.js';

/** A page whose records were checked: valid records, and the rejects with their zod issues. */
export interface ValidBatch extends Omit<PageBatch, 'records'> {
  /** Records that match the schema. */
  records: Record<string, unknown>[];
  /** Records that break it. */
  rejects: Reject[];
}

/**
 * Splits each page's records into valid records of `table` and rejects (raw record, page URL, zod issues); never
 * throws on bad data. Where the page has its body, a reject keeps its served text, and so does a valid record with keys
 * the schema does not know (for `extra`); the body is scanned only for a page that holds such a record. A record that
 * already carries its served text (record-text.ts) keeps it.
 */
export async function* validate(source: AsyncIterable<PageBatch>, table: Table = IMAGES): AsyncIterable<ValidBatch> {
  for await (const page of source) yield validatePage(page, table);
}

/** Validates one page's records against `table`. */
export function validatePage(page: PageBatch, table: Table = IMAGES): ValidBatch {
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
    const check = checkRecord(raw, table);
    if (check !== 'invalid') {
      const record = raw as Record<string, unknown>;
      const text = check === 'valid-with-extra' ? textAt(position) : undefined;
      if (text !== undefined) attachRecordText(record, text);
      records.push(record);
      return;
    }
    const unexplained = [{ path: [], message: 'rejected by the fast check but not by the schema' }];
    const issues = recordIssues(raw, table) ?? unexplained;
    const text = textAt(position) ?? (typeof raw === 'object' && raw !== null ? recordTextOf(raw) : undefined);
    const reject: Reject = { url: page.source.url, record: raw, issues };
    if (text !== undefined) reject.text = text;
    rejects.push(reject);
  });
  return { source: page.source, count: page.count, records, rejects };
}
