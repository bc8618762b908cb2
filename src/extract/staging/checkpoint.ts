/**
 * The staging folder beside the output: every fetched page is kept there as it arrives, with a journal line
 * saying what it held and its checksum, so that a crashed, killed or interrupted run resumes without fetching those
 * pages again, and never takes a page changed on disk for the one served.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { PageRecords } from '../../schema/row.js';
import { CodedError, type CodedErrorOptions } from '../../text/coded-error.js';
import { checksumProblem, pageChecksum } from './page-checksum.js';
import { JsonBytesError, parseJsonBytes } from '../paging/parse-json-bytes.js';
import { onPath } from '../../load/file-system/file-system-error.js';
import { makeFolders } from '../../load/file-system/make-folder.js';
import { readRegularFile, RegularFileError } from '../../load/file-system/read-regular-file.js';
import { releaseRunLock, takeRunLock } from '../../load/file-system/run-lock.js';

/**
 * The layout of the staging folder and its journal; staging of another format is discarded, not resumed. 4: each
 * staged page's checksum is in its journal line; 5: and its size in bytes; 6: and its valid records' columns are
 * staged beside it, with their own checksum and size.
 */
export const STAGING_FORMAT = 6;

/**
 * How long an unfinished run's staging is resumed by default: 12 hours (a nightly job does not resume last night's
 * run).
 */
export const DEFAULT_MAX_RESUME_AGE_MS = 12 * 3600 * 1000;

/** Options of `Checkpoint.open`. */
export interface CheckpointOpenOptions {
  /** Discard what an earlier run left; default false. */
  fresh?: boolean;
  /** Staging of a run started longer ago than this is discarded; default DEFAULT_MAX_RESUME_AGE_MS. */
  maxAgeMs?: number;
  /** The time now; default the clock. */
  now?: Date;
  /**
   * Encodes a staged page's valid records as the writers read them, staged beside its body (the runner's:
   * page-columns.ts); default none (nothing but the bodies is staged).
   */
  columns?: PageColumnsEncoder;
}

/** Encodes a page's valid records as the writers read them; resolves to undefined when none is valid. */
export type PageColumnsEncoder = (page: PageRecords) => Promise<Uint8Array | undefined>;

/** What a staging folder belongs to; a run resumes only staging of the same identity. */
export interface CheckpointIdentity {
  /** The list endpoint paged. */
  source_url: string;
  /** The page size asked for. */
  page_size: number;
  /** When the run first started, ISO 8601 (kept from the first attempt when a run resumes; not compared). */
  started_at: string;
  /** STAGING_FORMAT of the img-etl that wrote it (absent before format 2). */
  format?: number;
  /** The pipeline the run writes, by name and the sha256 of its file; absent for a run of no pipeline. */
  pipeline?: { name: string; sha256: string };
  /** The schema version of the table its pages' columns are rows of (absent when none are staged). */
  schema_version?: string;
}

/**
 * The identity the staging folder `dir` keeps: the unfinished run's own when it is this run's and not too old, else
 * `identity` in an emptied folder (a notice says why). Throws CheckpointError for another run's staging, however old,
 * unless `options.fresh`: only its own command (or --fresh) discards it. The staging of this run's pipeline as its file
 * was before a change is no other command's: no run can finish it, so it is discarded too.
 */
async function keptIdentity(
  dir: string,
  identity: CheckpointIdentity,
  options: CheckpointOpenOptions,
  notices: string[],
): Promise<CheckpointIdentity> {
  const existing = await readJson<CheckpointIdentity>(join(dir, IDENTITY));
  const other = existing !== undefined && !sameRun(existing, identity) && options.fresh !== true;
  if (other && !ofEarlierFile(existing, identity))
    throw new CheckpointError({
      code: 'MISMATCH',
      message:
        `staging: ${dir} holds an unfinished run of ${runOf(existing)}; run that command again ` +
        `to finish it, or add --fresh to discard it`,
    });
  const stale =
    existing === undefined || options.fresh === true
      ? undefined
      : other
        ? `holds an unfinished run of pipeline ${existing.pipeline?.name} as its file was then, which no run of the ` +
          'file as it is now can finish'
        : staleness(existing, options);
  if (stale !== undefined) notices.push(`staging: ${dir} ${stale}; discarded it and started afresh`);
  if (existing !== undefined && stale === undefined && options.fresh !== true) return existing;
  await emptyStaging(dir);
  const kept = { ...identity, format: STAGING_FORMAT };
  await writeIdentity(dir, kept);
  return kept;
}

/** Writes the staging's identity (run.json). */
async function writeIdentity(dir: string, identity: CheckpointIdentity): Promise<void> {
  const path = join(dir, IDENTITY);
  await onPath(path, () => writeFile(path, JSON.stringify(identity) + '\n'));
}

/** The notice for staged pages that did not read back as their journal lines say: they are fetched again. */
function brokenPagesNotice(dir: string, broken: readonly { file: string; reason: string }[]): string {
  const [first] = broken;
  return (
    `staging: ${broken.length} staged ${broken.length === 1 ? 'page' : 'pages'} in ${dir} ` +
    `could not be read back (${first!.file}: ${first!.reason}); fetching ${broken.length === 1 ? 'it' : 'them'} again`
  );
}

/** Whether staging of identity `a` is the unfinished run of `b`: the same source, page size and pipeline. */
function sameRun(a: CheckpointIdentity, b: CheckpointIdentity): boolean {
  return (
    a.source_url === b.source_url &&
    a.page_size === b.page_size &&
    a.pipeline?.name === b.pipeline?.name &&
    a.pipeline?.sha256 === b.pipeline?.sha256 &&
    a.schema_version === b.schema_version
  );
}

/** Whether staging of identity `a` is of run `b` but for its pipeline's file, as it was before a change. */
function ofEarlierFile(a: CheckpointIdentity, b: CheckpointIdentity): boolean {
  const { pipeline, schema_version } = b;
  return (
    a.pipeline !== undefined && a.pipeline.name === pipeline?.name && sameRun({ ...a, pipeline, schema_version }, b)
  );
}

/** The run a staging folder holds, in words: its source, page size and pipeline. */
function runOf(identity: CheckpointIdentity): string {
  const { pipeline } = identity;
  const of = pipeline === undefined ? '' : ` by pipeline ${pipeline.name}`;
  return `${identity.source_url} with page size ${identity.page_size}${of}`;
}

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

/**
 * Why a staging folder cannot be used: `LOCKED` (another run holds it), `MISMATCH` (another source or page size), or
 * `CHANGED` (a page staged was changed on disk while the run used it; a rerun fetches it again).
 */
export type CheckpointErrorCode = 'LOCKED' | 'MISMATCH' | 'CHANGED';

/** What a CheckpointError is made of; its message is prefixed `staging:` and names the folder. */
export type CheckpointErrorOptions = CodedErrorOptions<CheckpointErrorCode>;

/** Why a staging folder cannot be used. */
export class CheckpointError extends CodedError<CheckpointErrorCode> {
  override readonly name = 'CheckpointError';
}

const IDENTITY = 'run.json';
const JOURNAL = 'journal.ndjson';
const LOCK = 'lock';

/** An open staging folder: its journal so far, and the means to add pages to it. */
export class Checkpoint {
  /** Pages recorded in the journal, by earlier processes and this one. */
  pagesKept: number;
  /** The checksum and size of each staged file, from its journal line. */
  private readonly staged = new Map<string, StagedFile>();

  private constructor(
    /** The staging folder. */
    readonly dir: string,
    /** The identity the folder holds (its `started_at` is the first attempt's). */
    public identity: CheckpointIdentity,
    /** Journal entries of earlier processes (a torn last line is dropped). */
    public entries: JournalEntry[],
    private journal: FileHandle,
    /** What opening found and did about an earlier run's staging (discarded, pages dropped), one line each. */
    readonly notices: string[] = [],
    private readonly encodeColumns?: PageColumnsEncoder,
  ) {
    this.pagesKept = entries.filter(isPageEntry).length;
    for (const entry of entries) {
      if (!isPageEntry(entry) || entry.file === null) continue;
      this.staged.set(entry.file, entry);
      if (entry.type !== 'collections-page' && entry.columns !== undefined)
        this.staged.set(columnsFileOf(entry.file), entry.columns);
    }
  }

  /**
   * Opens (or creates) a staging folder and locks it for this process. `fresh` discards what an earlier run left;
   * so does staging older than `maxAgeMs` or written by another staging format, with a notice. Staged pages that
   * no longer read back as the journal says (missing, or not the bytes its checksum names) are dropped (with a
   * notice) so that the run fetches them again; so is what was read after the pass over the images (see
   * dropReadsAfterPass). A stale lock (its run ended, or its pid is another process's now) is
   * taken over with a notice. Throws CheckpointError when a live img-etl run holds it, or when it belongs to another
   * source or page size.
   */
  static async open(
    dir: string,
    identity: CheckpointIdentity,
    options: CheckpointOpenOptions = {},
  ): Promise<Checkpoint> {
    await makeFolders(dir);
    const tookOver = await takeLock(dir);
    try {
      const notices =
        tookOver === undefined ? [] : [`staging: took over the stale lock ${join(dir, LOCK)} (${tookOver})`];
      const kept = await keptIdentity(dir, identity, options, notices);
      const journalPath = join(dir, JOURNAL);
      const read = await readJournal(journalPath);
      const checked = await dropBrokenPages(dir, read.entries);
      const { broken } = checked;
      if (broken.length > 0) notices.push(brokenPagesNotice(dir, broken));
      const entries = await dropReadsAfterPass(dir, checked.entries);
      if (read.torn || broken.length > 0 || entries.length < checked.entries.length)
        await rewriteJournal(journalPath, entries);
      const journal = await open(journalPath, 'a');
      return new Checkpoint(dir, kept, entries, journal, notices, options.columns);
    } catch (err) {
      await releaseRunLock(join(dir, LOCK));
      throw err;
    }
  }

  /**
   * Keeps a page: its body first (under a temporary name, then renamed), and for a page of image records given with
   * its parsed `records`, its valid records' columns (when the checkpoint encodes them); then its journal line with
   * the files' checksums and sizes.
   */
  async addPage<T extends JournalPageEntry>(
    entry: Unstaged<T>,
    body: string | Uint8Array | undefined,
    records?: readonly unknown[],
  ): Promise<T> {
    let file: string | null = null;
    let stamp: StagedFile & { columns?: StagedFile } = {};
    if (body !== undefined) {
      file = fileNameOf(entry);
      stamp = { checksum: pageChecksum(body), bytes: Buffer.byteLength(body) };
      await replaceFile(join(this.dir, file), body);
      this.staged.set(file, stamp);
      const columns = await this.stageColumns(entry, file, body, records);
      if (columns !== undefined) stamp.columns = columns;
    }
    const page = { ...entry, file, ...stamp } as unknown as T;
    await this.append(page);
    this.pagesKept++;
    return page;
  }

  /** Stages the columns of a page of image records, when the checkpoint encodes them and one record is valid. */
  private async stageColumns(
    entry: Unstaged<JournalPageEntry>,
    file: string,
    body: string | Uint8Array,
    records: readonly unknown[] | undefined,
  ): Promise<StagedFile | undefined> {
    if (this.encodeColumns === undefined || records === undefined || entry.type === 'collections-page') return;
    const { ids, extra = [], url } = entry;
    const columns = await this.encodeColumns({ records, ids, extra, body, url });
    if (columns === undefined) return;
    await replaceFile(join(this.dir, columnsFileOf(file)), columns);
    const stamp = { checksum: pageChecksum(columns), bytes: columns.byteLength };
    this.staged.set(columnsFileOf(file), stamp);
    return stamp;
  }

  /**
   * The columns of a kept page's valid records (staged beside its body). Throws CheckpointError (CHANGED) when the
   * file is not a regular file of the size its journal line records, or not the bytes its checksum names.
   */
  async readColumns(file: string): Promise<Buffer> {
    return this.readStaged(columnsFileOf(file));
  }

  /** Records the end of a pass. */
  async endPass(pass: number): Promise<void> {
    await this.append({ type: 'pass-end', pass });
  }

  /** Records the end of a phase or of a collection's reading. */
  async mark(marker: JournalMarker): Promise<void> {
    await this.append(marker);
  }

  /**
   * A kept page: its body as staged and its records parsed. Throws CheckpointError (CHANGED) when the file is not a
   * regular file of the size its journal line records (found before a byte of it is read), or its body is not the one
   * its checksum names.
   */
  async readPage(file: string): Promise<{ body: Buffer; records: unknown[] }> {
    const body = await this.readStaged(file);
    return { body, records: (parseJsonBytes(body) as { results: unknown[] }).results };
  }

  /** A staged file's bytes, checked against its journal line. */
  private async readStaged(file: string): Promise<Buffer> {
    const path = join(this.dir, file);
    const stamp = this.staged.get(file) ?? {};
    const changed = (problem: string) =>
      new CheckpointError({ code: 'CHANGED', message: `staging: ${path}: ${problem}` });
    const read = await readStagedFile(path, stamp);
    if ('problem' in read) throw changed(read.problem);
    const problem = checksumProblem(read.body, stamp.checksum);
    if (problem !== undefined) throw changed(problem);
    return read.body;
  }

  /**
   * Discards what earlier processes staged (keeping the lock) and starts the run afresh as `identity`, with a notice.
   */
  async discard(identity: CheckpointIdentity, notice: string): Promise<void> {
    await this.journal.close().catch(() => undefined);
    await emptyStaging(this.dir);
    this.identity = { ...identity, format: STAGING_FORMAT };
    await writeIdentity(this.dir, this.identity);
    this.journal = await open(join(this.dir, JOURNAL), 'a');
    this.entries = [];
    this.staged.clear();
    this.pagesKept = 0;
    this.notices.push(notice);
  }

  /**
   * Closes the journal and deletes the staged files, keeping the lock (a published run that still works in its output
   * folder: `latest`, `--keep`); `remove` then releases it.
   */
  async empty(): Promise<void> {
    await this.journal.close().catch(() => undefined);
    await emptyStaging(this.dir);
  }

  /** Closes the journal and releases the lock; the folder stays for a later resume (unless it holds no page). */
  async close(): Promise<void> {
    if (this.pagesKept === 0) return this.remove();
    await this.journal.close().catch(() => undefined);
    await releaseRunLock(join(this.dir, LOCK));
  }

  /**
   * Closes and deletes the staged files and the lock, then the folder when that leaves it empty (after a successful
   * publish); a link to a folder elsewhere, and files img-etl did not write, stay.
   */
  async remove(): Promise<void> {
    await this.empty();
    await releaseRunLock(join(this.dir, LOCK));
    await rmdir(this.dir).catch(() => undefined); // not empty (files of someone's) or a link: left as it is
  }

  private async append(entry: JournalEntry): Promise<void> {
    await onPath(join(this.dir, JOURNAL), () => this.journal.write(JSON.stringify(entry) + '\n'));
  }
}

/** Whether `name` is a file img-etl writes in a staging folder (or its temporary name): the only names it deletes. */
function isStagingFile(name: string): boolean {
  const own = (n: string) => n === IDENTITY || n === JOURNAL || n === LOCK || PAGE_FILE.test(n);
  const temp = /^\.(.+)\.tmp-[0-9a-f]{8}$/.exec(name); // replaceFile's temporary name of one
  return own(name) || (temp !== null && own(temp[1]!));
}

/**
 * Deletes what earlier runs staged in `dir`, keeping the lock: img-etl's files only, so that a staging folder linked to
 * a scratch folder, or holding a file of someone's, loses nothing else.
 */
async function emptyStaging(dir: string): Promise<void> {
  for (const name of await readdir(dir)) if (name !== LOCK && isStagingFile(name)) await removeStaged(join(dir, name));
}

/**
 * Removes a file img-etl writes in a staging folder, or an empty folder put in its place (rm refuses one); a folder
 * that holds something is not img-etl's to delete: rmdir's error (ENOTEMPTY) names it.
 */
async function removeStaged(path: string): Promise<void> {
  await rm(path, { force: true }).catch(async (err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_FS_EISDIR') throw err;
    await rmdir(path);
  });
}

/** Locks a staging folder for this process; resolves to why the stale lock it took over was stale, if it did. */
async function takeLock(dir: string): Promise<string | undefined> {
  const result = await takeRunLock(join(dir, LOCK));
  if (result.taken) return result.tookOver;
  throw new CheckpointError({
    code: 'LOCKED',
    message: `staging: ${dir} is in use by another img-etl run (${result.holder})`,
  });
}

/** The most bytes of run.json and of the journal read: a staging folder's own files are far smaller. */
const RUN_JSON_MAX_BYTES = 1 << 20;
const JOURNAL_MAX_BYTES = 256 << 20;

/** run.json's value; undefined when it is not a regular file within bounds (a link, a FIFO) or does not parse. */
async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse((await readRegularFile(path, { maxBytes: RUN_JSON_MAX_BYTES })).toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

async function readJournal(path: string): Promise<{ entries: JournalEntry[]; torn: boolean }> {
  let text: string;
  try {
    text = (await readRegularFile(path, { maxBytes: JOURNAL_MAX_BYTES })).toString('utf8');
  } catch (err) {
    // Not a regular file within bounds (a link, a FIFO): no page is trusted, and it is replaced by a regular file
    // (torn) before it is opened to be added to, which a FIFO would block. None at all: a new staging.
    return { entries: [], torn: err instanceof RegularFileError };
  }
  const entries: JournalEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = undefined;
    }
    // a line torn by a crash: it and anything after it are not trusted
    if (!isJournalEntry(entry)) return { entries, torn: true };
    entries.push(entry);
    // no newline: the write did not finish
    if (i === lines.length - 1) return { entries: entries.slice(0, -1), torn: true };
  }
  return { entries, torn: false };
}

/** Replaces the journal with the entries that were read whole, so new lines do not follow a torn one. */
async function rewriteJournal(path: string, entries: JournalEntry[]): Promise<void> {
  await replaceFile(path, entries.map((e) => JSON.stringify(e) + '\n').join(''));
}

/**
 * Writes `data` under a temporary name beside `path`, then renames it to `path`: a reader sees the old file or the
 * whole new one. On failure the temporary file is removed: a full disk leaves no part of a page or journal behind.
 */
async function replaceFile(path: string, data: string | Uint8Array): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(4).toString('hex')}`);
  try {
    await onPath(path, () => writeFile(temp, data));
    await rename(temp, path).catch(async (err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
      await removeStaged(path); // an empty folder in its place
      await rename(temp, path);
    });
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Why an earlier run's staging is not to be resumed (another format, too old, no start time), or undefined. */
function staleness(existing: CheckpointIdentity, options: CheckpointOpenOptions): string | undefined {
  if (existing.format !== STAGING_FORMAT)
    return (
      `was written by another version of img-etl (staging format ${existing.format ?? 1}, ` +
      `this one reads ${STAGING_FORMAT})`
    );
  const started = Date.parse(existing.started_at);
  if (!Number.isFinite(started)) return 'does not say when its run started';
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_RESUME_AGE_MS;
  const now = options.now ?? new Date();
  const ageMs = now.getTime() - started;
  // Dated after now (the clock was moved back since, or run.json came from elsewhere): its age is unknown.
  if (ageMs < 0)
    return `holds a run started ${existing.started_at}, after the time now (${now.toISOString()}): its age is unknown`;
  if (ageMs > maxAgeMs)
    return (
      `holds a run started ${existing.started_at}, ${hours(ageMs)} ago, past the resume ` +
      `limit of ${hours(maxAgeMs)}`
    );
  return undefined;
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return `${Number.isInteger(h) ? h : h.toFixed(1)} h`;
}

/** A staged page that did not read back as its journal line says. */
interface BrokenPage {
  file: string;
  reason: string;
}

/**
 * Reads every staged page back and drops the journal lines of those that are missing or not the bytes their line's
 * checksum names (or that have none), with the marker that ends what they belong to (their pass, the collections list,
 * their collection's reading), so that it is fetched again; deletes their files. After a dropped page, the pages
 * staged without a body (nothing new: their records were in pages before them) are dropped too.
 */
async function dropBrokenPages(
  dir: string,
  entries: JournalEntry[],
): Promise<{ entries: JournalEntry[]; broken: BrokenPage[] }> {
  const broken: BrokenPage[] = [];
  const reopened = new Set<string>();
  const kept: JournalEntry[] = [];
  for (const entry of entries) {
    if (!isPageEntry(entry)) {
      kept.push(entry);
      continue;
    }
    if (entry.file === null) {
      // A page without a body held only records the run had: once a page before it is dropped, some of them may be
      // in no staged body any more, so it is fetched again too.
      if (broken.length === 0) kept.push(entry);
      else reopened.add(endKeyOf(entry));
      continue;
    }
    const reason = await pageProblem(join(dir, entry.file), entry);
    if (reason === undefined) kept.push(entry);
    else {
      broken.push({ file: entry.file, reason });
      reopened.add(endKeyOf(entry));
      await removePageFiles(dir, entry.file);
    }
  }
  if (broken.length === 0) return { entries, broken };
  return { entries: kept.filter((e) => isPageEntry(e) || !reopened.has(endKeyOf(e))), broken };
}

/**
 * The journal up to the first read of the collections list after the pass over the images (round 2), whose pages and
 * whatever followed them (the collections' own lists, later reads, the image list's count) are deleted: a resumed
 * run reads them again, so that what changed between the kill and the resume (a record edited, deleted or added)
 * shows against the read before the pass, as it does in a run not interrupted. The pass's own pages are kept.
 */
async function dropReadsAfterPass(dir: string, entries: JournalEntry[]): Promise<JournalEntry[]> {
  const cut = entries.findIndex((e) => (e.type === 'collections-page' || e.type === 'collections-end') && e.round >= 2);
  if (cut === -1) return entries;
  for (const entry of entries.slice(cut))
    if (isPageEntry(entry) && entry.file !== null) await removePageFiles(dir, entry.file);
  return entries.slice(0, cut);
}

/** Removes a staged page's body and its columns, when they are staging files (never a journal's `../x`). */
async function removePageFiles(dir: string, file: string): Promise<void> {
  for (const name of [file, columnsFileOf(file)]) if (isStagingFile(name)) await removeStaged(join(dir, name));
}

/** What a page belongs to and its marker ends: a pass, the collections list, a collection's reading. */
function endKeyOf(entry: JournalEntry): string {
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

/** Every name fileNameOf and columnsFileOf give, and no other: what isStagingFile takes for a staged page. */
const PAGE_FILE = /^(?:p\d+|c\d+-a\d+|l\d+-\d+)-\d+-\d+\.(?:json|arrow)$/;

/** The file of a staged page's columns, beside its body's: `….arrow`. */
function columnsFileOf(file: string): string {
  return file.replace(/\.json$/, '.arrow');
}

/**
 * The staged file of a page: `p<pass>-…` (image list), `c<collection>-a<attempt>-…`, `l<round>-<pass>-…` (collections).
 */
function fileNameOf(entry: Unstaged<JournalPageEntry>): string {
  const where = `${entry.offset}-${entry.limit}.json`;
  if (entry.type === 'page') return `p${entry.pass}-${where}`;
  if (entry.type === 'collection-page') return `c${entry.collection}-a${entry.attempt}-${where}`;
  return `l${entry.round}-${entry.pass}-${where}`;
}

/**
 * What is wrong with a staged page, or undefined when it is a regular file of the size its journal line records, holds
 * the records the line lists and is the page its checksum names.
 */
async function pageProblem(path: string, page: JournalPageEntry): Promise<string | undefined> {
  const read = await readStagedFile(path, page);
  if ('problem' in read) return read.problem;
  const problem = shapeProblem(read.body, page) ?? checksumProblem(read.body, page.checksum);
  if (problem !== undefined || page.type === 'collections-page' || page.columns === undefined) return problem;
  const columns = await readStagedFile(columnsFileOf(path), page.columns);
  if ('problem' in columns) return `its columns: ${columns.problem}`;
  const columnsProblem = checksumProblem(columns.body, page.columns.checksum);
  return columnsProblem === undefined ? undefined : `its columns: ${columnsProblem}`;
}

/** What the journal records of a staged file: its checksum and its size in bytes (either absent in an older one). */
interface StagedFile {
  checksum?: string;
  bytes?: number;
}

/**
 * A staged file's bytes, read only once the opened file is found to be a regular file (not a link, a FIFO, a device)
 * of the size its journal line records; else why not, in words that follow its name.
 */
async function readStagedFile(path: string, { bytes }: StagedFile): Promise<{ body: Buffer } | { problem: string }> {
  if (bytes === undefined) return { problem: 'the journal has no size of it' };
  const sizeProblem = (size: number) => (size === bytes ? undefined : `is ${size} bytes; the journal says ${bytes}`);
  try {
    return { body: await readRegularFile(path, { maxBytes: bytes, sizeProblem }) };
  } catch (err) {
    if (err instanceof RegularFileError) return { problem: err.message };
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { problem: 'missing' };
    return { problem: `cannot be read: ${(err as Error).message}` };
  }
}

/** What is wrong with a staged page's body that its journal line shows: it does not parse, or holds other records. */
function shapeProblem(body: Buffer, page: JournalPageEntry): string | undefined {
  let results: unknown;
  try {
    results = (parseJsonBytes(body) as { results?: unknown } | null)?.results;
  } catch (err) {
    return `${err instanceof JsonBytesError ? 'does not parse' : 'cannot be read'}: ${(err as Error).message}`;
  }
  if (!Array.isArray(results) || results.length !== page.ids.length)
    return `holds ${Array.isArray(results) ? results.length : 'no'} records, the journal says ${page.ids.length}`;
  for (let i = 0; i < results.length; i++) {
    const id = page.ids[i];
    if (id !== null && id !== undefined && (results[i] as { id?: unknown } | null)?.id !== id)
      return `record ${i} is not id ${id}`;
  }
  return undefined;
}

/** Whether a parsed journal line has the shape this version writes (a hand-edited or foreign line does not). */
function isJournalEntry(value: unknown): value is JournalEntry {
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
