/**
 * The staging folder beside the output: every fetched page is kept there as it arrives, with a journal line
 * saying what it held, so that a crashed, killed or interrupted run resumes without fetching those pages again.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJsonBytes } from './parse-json-bytes.js';

/** What a staging folder belongs to; a run resumes only staging of the same identity. */
export interface CheckpointIdentity {
  /** The list endpoint paged. */
  source_url: string;
  /** The page size asked for. */
  page_size: number;
  /** When the run first started, ISO 8601 (kept from the first attempt when a run resumes; not compared). */
  started_at?: string;
}

/** A fetched page, as the journal records it. */
export interface JournalPage {
  type: 'page';
  /** The completeness pass it belongs to, from 1. */
  pass: number;
  /** Offset and limit of the request. */
  offset: number;
  limit: number;
  /** The URL it came from. */
  url: string;
  /** `count` the page reported. */
  count: number;
  /** File in the staging folder holding the page body, or null when the page held nothing new. */
  file: string | null;
  /** Per record position: the id of a valid record, or null for a record that broke the schema. */
  ids: (number | null)[];
  /** Ids of the records that broke the schema (null when it had none usable), in position order. */
  rejected: (number | null)[];
  /** The server said nothing follows (empty results, no next link). */
  at_end: boolean;
}

/** The end of a completeness pass. */
export interface JournalPassEnd {
  type: 'pass-end';
  /** The pass that ended. */
  pass: number;
}

/** One journal line. */
export type JournalEntry = JournalPage | JournalPassEnd;

/** Why a staging folder cannot be used. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    /** Stable code: `LOCKED` (another run holds it) or `MISMATCH` (it belongs to another source or page size). */
    readonly code: 'LOCKED' | 'MISMATCH',
    message: string,
  ) {
    super(message);
  }
}

const IDENTITY = 'run.json';
const JOURNAL = 'journal.ndjson';
const LOCK = 'lock';

/** An open staging folder: its journal so far, and the means to add pages to it. */
export class Checkpoint {
  /** Pages recorded in the journal, by earlier processes and this one. */
  pagesKept: number;

  private constructor(
    /** The staging folder. */
    readonly dir: string,
    /** The identity the folder holds (its `started_at` is the first attempt's). */
    readonly identity: CheckpointIdentity,
    /** Journal entries of earlier processes (a torn last line is dropped). */
    readonly entries: JournalEntry[],
    private journal: FileHandle,
  ) {
    this.pagesKept = entries.filter((e) => e.type === 'page').length;
  }

  /**
   * Opens (or creates) a staging folder and locks it for this process. `fresh` discards what an earlier run left.
   * Throws CheckpointError when another live process holds it, or when it belongs to another source or page size.
   */
  static async open(dir: string, identity: CheckpointIdentity, options: { fresh?: boolean } = {}): Promise<Checkpoint> {
    await mkdir(dir, { recursive: true });
    await takeLock(dir);
    try {
      const existing = await readJson<CheckpointIdentity>(join(dir, IDENTITY));
      const same = existing !== undefined && existing.source_url === identity.source_url && existing.page_size === identity.page_size;
      if (existing !== undefined && !same && options.fresh !== true) {
        throw new CheckpointError(
          'MISMATCH',
          `staging: ${dir} holds an unfinished run of ${existing.source_url} with page size ${existing.page_size}; run that command again to finish it, or add --fresh to discard it`,
        );
      }
      let kept = existing;
      if (existing === undefined || options.fresh === true) {
        for (const name of await readdir(dir)) if (name !== LOCK) await rm(join(dir, name), { recursive: true, force: true });
        kept = identity;
        await writeFile(join(dir, IDENTITY), JSON.stringify(identity) + '\n');
      }
      const { entries, torn } = await readJournal(join(dir, JOURNAL));
      if (torn) await rewriteJournal(join(dir, JOURNAL), entries);
      const journal = await open(join(dir, JOURNAL), 'a');
      return new Checkpoint(dir, kept!, entries, journal);
    } catch (err) {
      await rm(join(dir, LOCK), { force: true });
      throw err;
    }
  }

  /** Keeps a page: its body first (under a temporary name, then renamed), then its journal line. */
  async addPage(entry: Omit<JournalPage, 'type' | 'file'>, body: string | Uint8Array | undefined): Promise<JournalPage> {
    let file: string | null = null;
    if (body !== undefined) {
      file = `p${entry.pass}-${entry.offset}-${entry.limit}.json`;
      const temp = join(this.dir, `.${file}.tmp-${randomBytes(4).toString('hex')}`);
      try {
        await writeFile(temp, body);
        await rename(temp, join(this.dir, file));
      } catch (err) {
        await rm(temp, { force: true }).catch(() => undefined); // a full disk leaves no part of a page behind
        throw err;
      }
    }
    const page: JournalPage = { type: 'page', ...entry, file };
    await this.append(page);
    this.pagesKept++;
    return page;
  }

  /** Records the end of a pass. */
  async endPass(pass: number): Promise<void> {
    await this.append({ type: 'pass-end', pass });
  }

  /** The records of a kept page. */
  async readRecords(file: string): Promise<unknown[]> {
    const page = parseJsonBytes(await readFile(join(this.dir, file))) as { results: unknown[] };
    return page.results;
  }

  /** Closes the journal and releases the lock; the folder stays for a later resume (unless it holds no page). */
  async close(): Promise<void> {
    if (this.pagesKept === 0) return this.remove();
    await this.journal.close().catch(() => undefined);
    await rm(join(this.dir, LOCK), { force: true });
  }

  /** Closes and deletes the whole folder (after a successful publish). */
  async remove(): Promise<void> {
    await this.journal.close().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  private async append(entry: JournalEntry): Promise<void> {
    await this.journal.write(JSON.stringify(entry) + '\n');
  }
}

async function takeLock(dir: string): Promise<void> {
  const path = join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(await readFile(path, 'utf8').catch(() => ''));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new CheckpointError('LOCKED', `staging: ${dir} is in use by another img-etl run (pid ${pid})`);
      }
      await rm(path, { force: true }); // left by a process that died
    }
  }
  throw new CheckpointError('LOCKED', `staging: could not lock ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function readJournal(path: string): Promise<{ entries: JournalEntry[]; torn: boolean }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { entries: [], torn: false };
  }
  const entries: JournalEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      return { entries, torn: true }; // a line torn by a crash: it and anything after it are not trusted
    }
    if (i === lines.length - 1) return { entries: entries.slice(0, -1), torn: true }; // no newline: the write did not finish
  }
  return { entries, torn: false };
}

/** Replaces the journal with the entries that were read whole, so new lines do not follow a torn one. */
async function rewriteJournal(path: string, entries: JournalEntry[]): Promise<void> {
  const temp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, entries.map((e) => JSON.stringify(e) + '\n').join(''));
  await rename(temp, path);
}
