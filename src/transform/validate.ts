/** The validate stage: each page's records checked against the table's schema, into valid records and rejects. */
import { RecordTexts } from '../schema/record-texts.js';
import { IMAGES } from '../schema/columns.js';
import { recordIssues } from '../schema/image-schema.js';
import { recordTextOf } from '../schema/record-text.js';
import type { PageBatch, Reject } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { checkRecord } from './check-record.js';
import { attachExtraTexts } from './extra-texts.js';
import { inexactNumberIssues, inexactRecordPositions } from './inexact-numbers.js';

/** A page whose records were checked: valid records, and the rejects with their zod issues. */
export interface ValidBatch extends Omit<PageBatch, 'records'> {
  /** Records that match the schema. */
  records: Record<string, unknown>[];
  /** Records that break it. */
  rejects: Reject[];
}

/**
 * Splits each page's records into valid records of `table` and rejects (raw record, page URL, zod issues); never
 * throws on bad data. Where the page has its body, a reject keeps its served text, and a valid record with keys the
 * schema does not know keeps the served text of those members (for `extra`), found as the staging finds them
 * (extra-texts.ts: the keys searched for, the page scanned only when that cannot be sure). A record that already
 * carries its served text (record-text.ts) keeps it. A record whose int64 or float64 value as parsed is not the one
 * its text says (inexact-numbers.ts) is a reject, as the snapshot's staging makes it.
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
      texts = page.body === undefined ? null : new RecordTexts(page.body, page.bodyText);
      if (texts !== null && texts.length !== page.records.length) texts = null;
    }
    return texts?.at(position);
  };
  const extra: number[] = [];
  // a number whose value as parsed is not the one its text says is refused, as the snapshot's staging refuses it
  const inexact = inexactRecordPositions(page.body, page.records.length, table, page.bodyText);
  page.records.forEach((raw, position) => {
    const check = inexact.has(position) ? 'invalid' : checkRecord(raw, table);
    if (check !== 'invalid') {
      if (check === 'valid-with-extra' && recordTextOf(raw as object) === undefined) extra.push(position);
      records.push(raw as Record<string, unknown>);
      return;
    }
    const unexplained = [{ path: [], message: 'rejected by the fast check but not by the schema' }];
    const text = textAt(position) ?? (typeof raw === 'object' && raw !== null ? recordTextOf(raw) : undefined);
    const inexactIssues = inexact.has(position) && text !== undefined ? inexactNumberIssues(text, table) : [];
    const issues = recordIssues(raw, table) ?? (inexactIssues.length > 0 ? inexactIssues : unexplained);
    const reject: Reject = { url: page.source.url, record: raw, issues };
    if (text !== undefined) reject.text = text;
    rejects.push(reject);
  });
  // the served text of their extra members, found as the staging finds them; else each record's whole text
  if (extra.length > 0 && page.body !== undefined)
    attachExtraTexts(page.body, page.records, extra, table.knownKeys, { textAt, bodyText: page.bodyText });
  return { source: page.source, count: page.count, records, rejects };
}
