/**
 * The files of a staging folder: their names, how each is written (whole or not at all), read back (a regular file of
 * the size its journal line gives) and removed (img-etl's own files only).
 */
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileSystemError, onPath } from '../../load/file-system/file-system-error.js';
import { readRegularFile, RegularFileError } from '../../load/file-system/read-regular-file.js';
import { journalEntry, type JournalEntry, type JournalPageEntry, type StagedFile, type Unstaged } from './journal.js';

/** The staging's identity (staging-identity.ts), its journal (journal.ts) and its lock (run-lock.ts). */
export const IDENTITY = 'run.json';
export const JOURNAL = 'journal.ndjson';
export const LOCK = 'lock';

/** Whether `name` is a file img-etl writes in a staging folder (or its temporary name): the only names it deletes. */
export function isStagingFile(name: string): boolean {
  const own = (n: string) => n === IDENTITY || n === JOURNAL || n === LOCK || PAGE_FILE.test(n) || SPILL_FILE.test(n);
  const temp = /^\.(.+)\.tmp-[0-9a-f]{8}$/.exec(name); // replaceFile's temporary name of one
  return own(name) || (temp !== null && own(temp[1]!));
}

/**
 * A refused call on the staging folder `dir` as the run's one line (LOAD_WRITE_FAILED), naming the file the error names
 * (a full disk's write names none: onPath gives it one) or else the folder; any other error as it is.
 */
export function stagingError(dir: string, cause: unknown, action = 'write to'): unknown {
  return fileSystemError({ stage: 'staging', action, path: dir, cause });
}

/** A file-system call on `path`, a file of the staging folder `dir`; its error is stagingError's, naming the file. */
export function onStagingFile<T>(dir: string, path: string, action: string, call: () => Promise<T>): Promise<T> {
  return onPath(path, call).catch((cause: unknown) => {
    throw stagingError(dir, cause, action);
  });
}

/**
 * Deletes what earlier runs staged in `dir`, keeping the lock: img-etl's files only, so that a staging folder linked to
 * a scratch folder, or holding a file of someone's, loses nothing else.
 */
export async function emptyStaging(dir: string): Promise<void> {
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

/** The most bytes of run.json and of the journal read: a staging folder's own files are far smaller. */
const RUN_JSON_MAX_BYTES = 1 << 20;

const JOURNAL_MAX_BYTES = 256 << 20;

/** run.json's value; undefined when it is not a regular file within bounds (a link, a FIFO) or does not parse. */
export async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse((await readRegularFile(path, { maxBytes: RUN_JSON_MAX_BYTES })).toString('utf8'));
  } catch {
    return undefined;
  }
}

export async function readJournal(path: string): Promise<{ entries: JournalEntry[]; torn: boolean }> {
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
    // a line torn by a crash, or of a shape this version never writes: it and anything after it are not trusted
    if (!journalEntry.safeParse(entry).success) return { entries, torn: true };
    // the line as written (zod's copy orders its keys by the schema): a rewritten journal keeps its bytes
    entries.push(entry as JournalEntry);
    // no newline: the write did not finish
    if (i === lines.length - 1) return { entries: entries.slice(0, -1), torn: true };
  }
  return { entries, torn: false };
}

/** Replaces the journal with the entries that were read whole, so new lines do not follow a torn one. */
export async function rewriteJournal(path: string, entries: JournalEntry[]): Promise<void> {
  await replaceFile(path, entries.map((e) => JSON.stringify(e) + '\n').join(''));
}

/**
 * Writes `data` under a temporary name beside `path`, then renames it to `path`: a reader sees the old file or the
 * whole new one. On failure the temporary file is removed: a full disk leaves no part of a page or journal behind.
 */
export async function replaceFile(path: string, data: string | Uint8Array): Promise<void> {
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

/** Every name fileNameOf and columnsFileOf give, and no other: what isStagingFile takes for a staged page. */
const PAGE_FILE = /^(?:p\d+|c\d+-a\d+|l\d+-\d+)-\d+-\d+\.(?:json|arrow)$/;

/**
 * The write's spill files, made again by each write: one per range of ids (run/write/staged-rows.ts), and the
 * collections' records to write (replay-collections.ts).
 */
const SPILL_FILE = /^spill-(?:\d+|collections)\.bin$/;

/** The spill file of the write's `range`-th range of ids, or of the collections. */
export function spillFileOf(range: number | 'collections'): string {
  return `spill-${range}.bin`;
}

/** The file of a staged page's columns, beside its body's: `….arrow`. */
export function columnsFileOf(file: string): string {
  return file.replace(/\.json$/, '.arrow');
}

/**
 * The staged file of a page: `p<pass>-…` (image list), `c<collection>-a<attempt>-…`, `l<round>-<pass>-…` (collections).
 */
export function fileNameOf(entry: Unstaged<JournalPageEntry>): string {
  const where = `${entry.offset}-${entry.limit}.json`;
  if (entry.type === 'page') return `p${entry.pass}-${where}`;
  if (entry.type === 'collection-page') return `c${entry.collection}-a${entry.attempt}-${where}`;
  return `l${entry.round}-${entry.pass}-${where}`;
}

/**
 * A staged file's bytes, read only once the opened file is found to be a regular file (not a link, a FIFO, a device)
 * of the size its journal line records; else why not, in words that follow its name.
 */
export async function readStagedFile(
  path: string,
  { bytes }: StagedFile,
): Promise<{ body: Buffer } | { problem: string }> {
  const sizeProblem = (size: number) => (size === bytes ? undefined : `is ${size} bytes; the journal says ${bytes}`);
  try {
    return { body: await readRegularFile(path, { maxBytes: bytes, sizeProblem }) };
  } catch (err) {
    if (err instanceof RegularFileError) return { problem: err.reason };
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { problem: 'missing' };
    return { problem: `cannot be read: ${(err as Error).message}` };
  }
}

/** Removes a staged page's body and its columns, when they are staging files (never a journal's `../x`). */
export async function removePageFiles(dir: string, file: string): Promise<void> {
  for (const name of [file, columnsFileOf(file)]) if (isStagingFile(name)) await removeStaged(join(dir, name));
}
