/**
 * The staging's journal: one JSON line for each page staged and each phase ended, what the run builds on and the count
 * it holds its rows to. Each kind of line is a zod schema, the one definition of its shape: the run writes values of
 * its type, and a line read back is parsed by it (a hand-edited or foreign line fails).
 */
import { z } from 'zod';

/** A whole number a double holds exactly: z.int() refuses fractions and anything past 2^53. */
const int = z.int();
const ints = z.array(int);
const intsOrNull = z.array(int.nullable());

/** The name of a file in the staging folder: no path, no dot file (never a journal's `../x`). */
const fileName = z.string().regex(/^(?!\.)[\w.-]+$/);

/** What the journal records of a staged file: its checksum (page-checksum.ts) and its size in bytes. */
const stagedFile = z.object({ checksum: z.string(), bytes: int });
export type StagedFile = z.infer<typeof stagedFile>;

/** A staged page's body: the file holding it, with its checksum and size. */
const body = { file: fileName, ...stagedFile.shape };

/** What the journal records of every fetched page. */
const request = {
  /** Offset and limit of the request. */
  offset: int,
  limit: int,
  /** The URL it came from. */
  url: z.string(),
  /** `count` the page reported. */
  count: int,
  /** The server said nothing follows (empty results, no next link). */
  at_end: z.boolean(),
};

/**
 * How a record that broke the schema is told apart: its id when it is a safe integer, else `sha256:<hex>` of its JSON
 * text.
 */
const rejectKey = z.union([int, z.string()]);
export type RejectKey = z.infer<typeof rejectKey>;

/** What the journal records of every staged page of image records, whichever list it came from. */
const records = {
  ...request,
  /** Per record position: the id of a valid record, or null for a record that broke the schema. */
  ids: intsOrNull,
  /** For each record that broke the schema, in position order: its id when usable, else a hash of its content. */
  rejected: z.array(rejectKey),
  /** Positions of the valid records that have keys the schema does not know: their `extra` is the staged text. */
  extra: ints,
  /** Positions of records that replace the copy the run kept of their id (a newer copy); absent when none. */
  replaced: ints.optional(),
  /** Ids of records whose copy here differs from the one the run had (replaced or not); absent when none. */
  conflicts: ints.optional(),
};

/**
 * A page of image records with `where` it came from, in its two shapes: its body staged, with the file of its valid
 * records' columns (columnsFileOf) when one is valid; or not (file null: it held nothing new).
 */
function recordPage<T extends z.ZodRawShape>(where: T) {
  return {
    staged: z.object({ ...where, ...records, ...body, columns: stagedFile.optional() }),
    unstaged: z.object({ ...where, ...records, file: z.null() }),
  };
}

/** A fetched page of `/api/images/`, as the journal records it. */
const page = recordPage({
  type: z.literal('page'),
  /** The completeness pass it belongs to, from 1. */
  pass: int,
  /** The `collection_id` of each record position as runs: `[id, length, id, length, …]`, id null when unusable. */
  collections: intsOrNull,
  /** The NIDM results packages its records name (`nidm_results`), with their collection: `[collection, url]`. */
  packages: z.array(z.tuple([int, z.string()])).optional(),
  /** Offsets of the records of its range skipped after failing alone (never served); absent when none was. */
  skipped: ints.optional(),
});
export type JournalPage = z.infer<typeof page.staged> | z.infer<typeof page.unstaged>;

/** A fetched page of one collection's own list, `/api/collections/<id>/images/`, as the journal records it. */
const collectionPage = recordPage({
  type: z.literal('collection-page'),
  /** The collection. */
  collection: int,
  /** Which reading of the collection's list, from 1 (its `count` changed while an earlier one paged it). */
  attempt: int,
});
export type JournalCollectionPage = z.infer<typeof collectionPage.staged> | z.infer<typeof collectionPage.unstaged>;

/** A staged page of image records: from the image list or from a collection's own list. */
export type StagedPage = JournalPage | JournalCollectionPage;

/** A fetched page of `/api/collections/`, as the journal records it; its body is always staged. */
const collectionsPage = z.object({
  type: z.literal('collections-page'),
  /** 1: the list read before the pass over the image list; 2: read again after it. */
  round: int,
  /** The pass over the collections list in its round, from 1. */
  pass: int,
  ...request,
  ...body,
  /** Per position: the collection's id, or null when it has no usable one. */
  ids: intsOrNull,
  /** Per position: the collection's `number_of_images`, or null when it is not a whole number. */
  sizes: intsOrNull,
  /**
   * Per position: the collection's `modify_date` in UTC microseconds, or null when it does not read as one; whole, but
   * past 2^53 for a date before 1685 or after 2254 (modified-at.ts gives them as the nearest double), so any finite
   * number.
   */
  modified: z.array(z.number().nullable()),
});
export type JournalCollectionsPage = z.infer<typeof collectionsPage>;

/** The end of a completeness pass over `/api/images/`. */
const passEnd = z.object({
  type: z.literal('pass-end'),
  /** The pass that ended. */
  pass: int,
});

/** The end of the collections phase: the list is read, or the service has none. */
const collectionsEnd = z.object({
  type: z.literal('collections-end'),
  /** The round that ended (see collectionsPage). */
  round: int,
  /** Passes made over the collections list. */
  passes: int,
  /** 200 when the service lists its collections; else the status its list answered (404: no such endpoint). */
  status: int,
});

/** The end of one collection's reading: read in full (200), or unreadable (403 private now, 404 deleted). */
const collectionEnd = z.object({
  type: z.literal('collection-end'),
  collection: int,
  /** The reading that ended, from 1. */
  attempt: int,
  /** 200, or the status the collection's list answered. */
  status: int,
  /** `count` of its list's last page (0 when unreadable). */
  count: int,
  /** Distinct records its list served in this reading. */
  received: int,
});
export type JournalCollectionEnd = z.infer<typeof collectionEnd>;

/**
 * What a run builds on, decided once before anything is fetched so that a resumed run keeps to it: an earlier snapshot
 * (an incremental run: its folder name and the sha256 of its manifest), or none (a full run, and why, in one line).
 */
const base = {
  snapshot: z.object({ type: z.literal('base'), name: z.string(), manifest_sha256: z.string() }),
  none: z.object({ type: z.literal('base'), name: z.null(), why: z.string() }),
};
export type JournalBase = z.infer<typeof base.snapshot> | z.infer<typeof base.none>;

/**
 * The image list's `count` an incremental run holds its rows to, asked for once after the collections list's second
 * read: a resumed run holds them to the same count, and so decides as the killed one did.
 */
const count = z.object({ type: z.literal('count'), count: int });
export type JournalCount = z.infer<typeof count>;

/**
 * One journal line, its schema found by its `type` (a discriminated union: one look-up, where a plain union parses the
 * line against each kind in turn): a kind's usual shape first, then the other shape of those that have two. A page of
 * image records has a reject key for each record that broke the schema.
 */
export const journalEntry = z
  .union([
    z.discriminatedUnion('type', [
      page.staged,
      collectionPage.staged,
      collectionsPage,
      passEnd,
      collectionsEnd,
      collectionEnd,
      base.snapshot,
      count,
    ]),
    z.discriminatedUnion('type', [page.unstaged, collectionPage.unstaged, base.none]),
  ])
  .refine((e) => !('rejected' in e) || e.rejected.length === e.ids.filter((id) => id === null).length);
export type JournalEntry = z.infer<typeof journalEntry>;

/** A staged page of any kind. */
export type JournalPageEntry = StagedPage | JournalCollectionsPage;

/** A line that marks the end of something, what the run builds on, or the count it holds its rows to. */
export type JournalMarker = Exclude<JournalEntry, JournalPageEntry>;

/** A page's journal line before its body is staged (each kind of a union on its own). */
export type Unstaged<T extends JournalPageEntry> = T extends JournalPageEntry
  ? Omit<T, 'file' | 'checksum' | 'bytes' | 'columns'>
  : never;

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
