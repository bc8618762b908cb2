/**
 * Staging: every fetched page is kept in the staging folder beside the output as it arrives, with a journal line saying
 * what it held and its checksum, so that an interrupted run resumes without fetching those pages again and never takes
 * a page changed on disk for the one served. The Checkpoint opens, adds to and closes a staging folder.
 */
import { type FileHandle, open, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PageRecords } from '../../schema/row.js';
import { checksumProblem, pageChecksum } from './page-checksum.js';
import { parseJsonBytes } from '../paging/parse-json-bytes.js';
import { onPath } from '../../load/file-system/file-system-error.js';
import { makeFolders } from '../../load/file-system/make-folder.js';
import { releaseRunLock, takeRunLock } from '../../load/file-system/run-lock.js';
import { CheckpointError } from './checkpoint-error.js';
import {
  isPageEntry,
  type JournalEntry,
  type JournalMarker,
  type JournalPageEntry,
  type StagedFile,
  type Unstaged,
} from './journal.js';
import { brokenPagesNotice, dropBrokenPages, dropReadsAfterPass } from './kept-pages.js';
import { keptIdentity, writeIdentity, type CheckpointIdentity, type ResumeOptions } from './staging-identity.js';
import {
  columnsFileOf,
  emptyStaging,
  fileNameOf,
  JOURNAL,
  LOCK,
  readJournal,
  readStagedFile,
  replaceFile,
  rewriteJournal,
} from './staging-files.js';

/** Options of `Checkpoint.open`. */
export interface CheckpointOpenOptions extends ResumeOptions {
  /**
   * Encodes a staged page's valid records as the writers read them, staged beside its body (the runner's:
   * page-columns.ts); default none (nothing but the bodies is staged).
   */
  columns?: PageColumnsEncoder;
}

/** Encodes a page's valid records as the writers read them; resolves to undefined when none is valid. */
export type PageColumnsEncoder = (page: PageRecords) => Promise<Uint8Array | undefined>;

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
   * its parsed `records` (and the body as Latin-1 text, when its parse made it), its valid records' columns (when the
   * checkpoint encodes them); then its journal line with the files' checksums and sizes.
   */
  async addPage<T extends JournalPageEntry>(
    entry: Unstaged<T>,
    body: string | Uint8Array | undefined,
    records?: readonly unknown[],
    bodyText?: string,
  ): Promise<T> {
    let file: string | null = null;
    let stamp: (StagedFile & { columns?: StagedFile }) | undefined;
    if (body !== undefined) {
      file = fileNameOf(entry);
      stamp = { checksum: pageChecksum(body), bytes: Buffer.byteLength(body) };
      await replaceFile(join(this.dir, file), body);
      this.staged.set(file, stamp);
      const columns = await this.saveColumns(entry, { body, bodyText, file }, records);
      if (columns !== undefined) stamp.columns = columns;
    }
    const page = { ...entry, file, ...stamp } as unknown as T;
    await this.append(page);
    this.pagesKept++;
    return page;
  }

  /** Stages the columns of a page of image records, when the checkpoint encodes them and one record is valid. */
  private async saveColumns(
    entry: Unstaged<JournalPageEntry>,
    { body, bodyText, file }: { body: string | Uint8Array; bodyText: string | undefined; file: string },
    records: readonly unknown[] | undefined,
  ): Promise<StagedFile | undefined> {
    if (this.encodeColumns === undefined || records === undefined || entry.type === 'collections-page') return;
    const { ids, extra, url } = entry;
    const columns = await this.encodeColumns({ records, ids, extra, body, bodyText, url });
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
    const body = await this.readBody(file);
    return { body, records: (parseJsonBytes(body) as { results: unknown[] }).results };
  }

  /** A kept page's body as staged, checked as readPage checks it, not parsed. */
  readBody(file: string): Promise<Buffer> {
    return this.readStaged(file);
  }

  /** A staged file's bytes, checked against its journal line. */
  private async readStaged(file: string): Promise<Buffer> {
    const path = join(this.dir, file);
    const stamp = this.staged.get(file);
    const changed = (problem: string) => CheckpointError.of('CHANGED', `staging: ${path}: ${problem}`);
    if (stamp === undefined) throw changed('the journal does not list it');
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
    this.identity = identity;
    await writeIdentity(this.dir, identity);
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

/** Locks a staging folder for this process; resolves to why the stale lock it took over was stale, if it did. */
async function takeLock(dir: string): Promise<string | undefined> {
  const result = await takeRunLock(join(dir, LOCK));
  if (result.taken) return result.tookOver;
  throw CheckpointError.of('LOCKED', `staging: ${dir} is in use by another img-etl run (${result.holder})`);
}
