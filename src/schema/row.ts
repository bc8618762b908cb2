/**
 * The values that flow between stages: raw pages from extract, normalised rows to load.
 */
import type { RecordIssue } from './record-issue.js';

/**
 * One value of a normalised row: int64/float64 as number, timestamp as bigint microseconds since the epoch (UTC),
 * boolean, string (category and json too), or null.
 */
export type RowValue = string | number | boolean | bigint | null;

/** A normalised output row: a value for every column name of COLUMNS. */
export type Row = Record<string, RowValue>;

/** Where a batch came from: the page request. */
export interface PageRef {
  /** The URL the page was fetched from. */
  url: string;
  /** The page's offset in the list. */
  offset: number;
}

/** A record that broke the schema, kept as data: the raw record, where it came from and why. */
export interface Reject {
  /**
   * Where the record can be fetched: in rejects.ndjson its own URL (the image list's when its id is unusable), so that
   * the file depends only on the records; elsewhere the page it came from.
   */
  url: string;
  /** The raw record as served, parsed. */
  record: unknown;
  /** The record's JSON text as served, when known: rejects.ndjson holds it in place of `record` re-serialised. */
  text?: string;
  /** The zod issues. */
  issues: RecordIssue[];
}

/** A page as extracted: raw records, not yet validated. */
export interface PageBatch {
  /** Where the page came from. */
  source: PageRef;
  /** `count` as the page reported it. */
  count: number;
  /** The raw records of `results`. */
  records: unknown[];
  /** The page size the server applied. */
  limit?: number;
  /**
   * The body's bytes: as received, or for a page split after failures, a page body joined from the texts of its
   * halves' records (join-page-bodies.ts). Where it is absent, validation and normalisation use the parsed values.
   */
  body?: Uint8Array;
  /**
   * The body's bytes as Latin-1 text, a character a byte, when its parse made it (parse-json-bytes.ts): the page's
   * searches of its bytes read this text, made once a page.
   */
  bodyText?: string;
  /** The server said nothing follows: `results` was empty and `next` null. */
  atEnd?: boolean;
  /** Records of the range skipped after failing alone (fetch-range.ts); absent when none was. */
  skipped?: number;
}

/** A staged page's records, to be encoded as the writers read them (page-columns.ts). */
export interface PageRecords {
  /** The page's records as parsed, in position order. */
  readonly records: readonly unknown[];
  /** Per position: the id of a valid record, or null for one that broke the schema (not encoded). */
  readonly ids: readonly (number | null)[];
  /** Positions of the valid records with keys the schema does not know: their `extra` is taken from `body`. */
  readonly extra: readonly number[];
  /** The page body as served. */
  readonly body: string | Uint8Array;
  /** The body as Latin-1 text, when its parse made it (PageBatch.bodyText). */
  readonly bodyText?: string | undefined;
  /** The page URL, named in errors. */
  readonly url: string;
}

/** A page-sized batch of normalised rows, with the records of that page that were rejected. */
export interface RowBatch {
  /** Where the page came from. */
  source: PageRef;
  /** Valid, normalised rows. */
  rows: Row[];
  /** Records that broke the schema. */
  rejects: Reject[];
}

/**
 * The batches as rows alone, for a user's code that may change them (a stage, a sink): a batch of staged columns also
 * carries its size, Arrow batch and CSV records, which would no longer match rows changed in a copy of it.
 */
export async function* rowsOnly(source: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
  for await (const { source: where, rows, rejects } of source) yield { source: where, rows, rejects };
}

/** How many rows a batch holds, without reading them: a batch of staged columns says it (`size`). */
export function rowCount(batch: RowBatch): number {
  return (batch as { size?: number }).size ?? batch.rows.length;
}
