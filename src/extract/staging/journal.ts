/**
 * The staging's journal: one JSON line for each page staged and each phase ended, what the run builds on and the count
 * it holds its rows to. The types of its lines, and the check that a line read back has the shape this version writes.
 */

/** What the journal records of every staged page of image records, whichever list it came from. */
interface RecordPageFields {
  /** Offset and limit of the request. */
  offset: number;
  limit: number;
  /** The URL it came from. */
  url: string;
  /** `count` the page reported. */
  count: number;
  /** File in the staging folder holding the page body, or null when the page held nothing new. */
  file: string | null;
  /** The file's checksum (page-checksum.ts); absent without a file (and in a journal of staging format 3 or before). */
  checksum?: string;
  /** The file's size in bytes; absent without a file (and in a journal of staging format 4 or before). */
  bytes?: number;
  /** Per record position: the id of a valid record, or null for a record that broke the schema. */
  ids: (number | null)[];
  /** For each record that broke the schema, in position order: its id when usable, else a hash of its content. */
  rejected: RejectKey[];
  /** Positions of records that replace the copy the run kept of their id (a newer copy); absent when none. */
  replaced?: number[];
  /** Ids of records whose copy here differs from the one the run had (replaced or not); absent when none. */
  conflicts?: number[];
  /**
   * Positions of the valid records that have keys the schema does not know: their `extra` is taken from the staged
   * text. Absent in a journal written before it was kept: then every valid record's text is taken.
   */
  extra?: number[];
  /** The checksum and size of the file of its valid records' columns (columnsFileOf); absent when none. */
  columns?: StagedFile;
  /** The server said nothing follows (empty results, no next link). */
  at_end: boolean;
}

/** A fetched page of `/api/images/`, as the journal records it. */
export interface JournalPage extends RecordPageFields {
  type: 'page';
  /** The completeness pass it belongs to, from 1. */
  pass: number;
  /** The `collection_id` of each record position as runs: `[id, length, id, length, …]`, id null when unusable. */
  collections?: (number | null)[];
  /** The NIDM results packages its records name (`nidm_results`), with their collection: `[collection, url]`. */
  packages?: [number, string][];
  /** Offsets of the records of its range skipped after failing alone (never served); absent when none was. */
  skipped?: number[];
}

/** A fetched page of one collection's own list, `/api/collections/<id>/images/`, as the journal records it. */
export interface JournalCollectionPage extends RecordPageFields {
  type: 'collection-page';
  /** The collection. */
  collection: number;
  /** Which reading of the collection's list, from 1 (its `count` changed while an earlier one paged it). */
  attempt: number;
}

/** A staged page of image records: from the image list or from a collection's own list. */
export type StagedPage = JournalPage | JournalCollectionPage;

/** A fetched page of `/api/collections/`, as the journal records it; its body is always staged. */
export interface JournalCollectionsPage {
  type: 'collections-page';
  /** 1: the list read before the pass over the image list; 2: read again after it. */
  round: number;
  /** The pass over the collections list in its round, from 1. */
  pass: number;
  offset: number;
  limit: number;
  url: string;
  /** `count` the page reported: the public collections. */
  count: number;
  /** File in the staging folder holding the page body. */
  file: string;
  /** The file's checksum (page-checksum.ts); absent in a journal of staging format 3 or before. */
  checksum?: string;
  /** The file's size in bytes; absent in a journal of staging format 4 or before. */
  bytes?: number;
  /** Per position: the collection's id, or null when it has no usable one. */
  ids: (number | null)[];
  /** Per position: the collection's `number_of_images`, or null when it is not a whole number. */
  sizes: (number | null)[];
  /** Per position: the collection's `modify_date` in UTC microseconds, or null when it does not read as one. */
  modified: (number | null)[];
  /** The server said nothing follows. */
  at_end: boolean;
}

/**
 * How a record that broke the schema is told apart: its id when it is a safe integer, else `sha256:<hex>` of its JSON
 * text.
 */
export type RejectKey = number | string;

/** The end of a completeness pass over `/api/images/`. */
export interface JournalPassEnd {
  type: 'pass-end';
  /** The pass that ended. */
  pass: number;
}

/** The end of the collections phase: the list is read, or the service has none. */
export interface JournalCollectionsEnd {
  type: 'collections-end';
  /** The round that ended (see JournalCollectionsPage). */
  round: number;
  /** Passes made over the collections list. */
  passes: number;
  /** 200 when the service lists its collections; else the status its list answered (404: no such endpoint). */
  status: number;
}

/** The end of one collection's reading: read in full (200), or unreadable (403 private now, 404 deleted). */
export interface JournalCollectionEnd {
  type: 'collection-end';
  collection: number;
  /** The reading that ended, from 1. */
  attempt: number;
  /** 200, or the status the collection's list answered. */
  status: number;
  /** `count` of its list's last page (0 when unreadable). */
  count: number;
  /** Distinct records its list served in this reading. */
  received: number;
}

/** A staged page of any kind. */
export type JournalPageEntry = StagedPage | JournalCollectionsPage;

/**
 * A page's journal line before its body is staged: without `file`, `checksum` and `bytes` (each kind of a union on its
 * own).
 */
export type Unstaged<T extends JournalPageEntry> = T extends JournalPageEntry
  ? Omit<T, 'file' | 'checksum' | 'bytes'>
  : never;

/**
 * What a run builds on, decided once before anything is fetched so that a resumed run keeps to it: an earlier snapshot
 * (an incremental run: its folder name and the sha256 of its manifest), or none (a full run, and why).
 */
export interface JournalBase {
  type: 'base';
  /** The snapshot folder built on; null for a full run. */
  name: string | null;
  /** The sha256 of its manifest. */
  manifest_sha256?: string;
  /** Why the run makes a full pass, one line. */
  why?: string;
}

/**
 * The image list's `count` an incremental run holds its rows to, asked for once after the collections list's second
 * read: a resumed run holds them to the same count, and so decides as the killed one did.
 */
export interface JournalCount {
  type: 'count';
  count: number;
}

/** A line that marks the end of something, what the run builds on, or the count it holds its rows to. */
export type JournalMarker = JournalPassEnd | JournalCollectionsEnd | JournalCollectionEnd | JournalBase | JournalCount;

/** One journal line. */
export type JournalEntry = JournalPageEntry | JournalMarker;

/** What the journal records of a staged file: its checksum and its size in bytes (either absent in an older one). */
export interface StagedFile {
  checksum?: string;
  bytes?: number;
}

/** What a page belongs to and its marker ends: a pass, the collections list, a collection's reading. */
export function endKeyOf(entry: JournalEntry): string {
  switch (entry.type) {
    case 'page':
    case 'pass-end':
      return `pass ${entry.pass}`;
    case 'collections-page':
    case 'collections-end':
      return `collections ${entry.round}`;
    case 'collection-page':
    case 'collection-end':
      return `collection ${entry.collection}`;
    case 'base':
    case 'count':
      return entry.type; // ends nothing: no page belongs to it
  }
}

/** Whether a journal line is a staged page (of any kind). */
export function isPageEntry(entry: JournalEntry): entry is JournalPageEntry {
  return entry.type === 'page' || entry.type === 'collection-page' || entry.type === 'collections-page';
}

/** Whether a parsed journal line has the shape this version writes (a hand-edited or foreign line does not). */
export function isJournalEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  const ints = (...keys: string[]) => keys.every((key) => Number.isSafeInteger(e[key]));
  switch (e['type']) {
    case 'pass-end':
      return ints('pass');
    case 'collections-end':
      return ints('round', 'passes', 'status');
    case 'collection-end':
      return ints('collection', 'attempt', 'status', 'count', 'received');
    case 'collections-page':
      return (
        isPageShape(e) &&
        ints('round', 'pass') &&
        e['file'] !== null &&
        isIntList(e['sizes'], true) &&
        isTimeList(e['modified'])
      );
    case 'page':
      return (
        isRecordPage(e) &&
        ints('pass') &&
        (e['collections'] === undefined || isIntList(e['collections'], true)) &&
        (e['skipped'] === undefined || isIntList(e['skipped'], false))
      );
    case 'collection-page':
      return isRecordPage(e) && ints('collection', 'attempt');
    case 'count':
      return ints('count');
    case 'base':
      return e['name'] === null
        ? e['why'] === undefined || typeof e['why'] === 'string'
        : typeof e['name'] === 'string' && typeof e['manifest_sha256'] === 'string';
    default:
      return false;
  }
}

/** Offsets, URL, file and ids as every staged page has them. */
function isPageShape(e: Record<string, unknown>): boolean {
  const file = e['file'];
  return (
    ['offset', 'limit', 'count'].every((key) => Number.isSafeInteger(e[key])) &&
    typeof e['url'] === 'string' &&
    (file === null || (typeof file === 'string' && /^[\w.-]+$/.test(file) && !file.startsWith('.'))) &&
    (e['checksum'] === undefined || typeof e['checksum'] === 'string') &&
    (e['bytes'] === undefined || Number.isSafeInteger(e['bytes'])) &&
    (e['columns'] === undefined || isStamp(e['columns'])) &&
    isIntList(e['ids'], true)
  );
}

/** A page of image records: a page's shape, and a reject key for each record that broke the schema. */
function isRecordPage(e: Record<string, unknown>): boolean {
  const rejected = e['rejected'];
  return (
    isPageShape(e) &&
    Array.isArray(rejected) &&
    rejected.length === (e['ids'] as unknown[]).filter((id) => id === null).length &&
    rejected.every((k) => Number.isSafeInteger(k) || typeof k === 'string')
  );
}

/** A staged file's checksum and size, as a journal line records them. */
function isStamp(value: unknown): boolean {
  const stamp = value as Record<string, unknown> | null;
  return (
    typeof stamp === 'object' &&
    stamp !== null &&
    typeof stamp['checksum'] === 'string' &&
    Number.isSafeInteger(stamp['bytes'])
  );
}

/**
 * `modified` of a collections page: UTC microseconds or null; whole, but past 2^53 for a date before 1685 or after 2254
 * (modified-at.ts gives them as the nearest double), so any finite number.
 */
function isTimeList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => v === null || (typeof v === 'number' && Number.isFinite(v)));
}

function isIntList(value: unknown, nullable: boolean): boolean {
  return Array.isArray(value) && value.every((v) => Number.isSafeInteger(v) || (nullable && v === null));
}
