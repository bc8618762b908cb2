/**
 * Which staged pages a resumed run keeps: each page is read back and checked against its journal line (size, records,
 * checksum, its columns' too), and what was read after the pass over the images is read again.
 */
import { join } from 'node:path';
import { JsonBytesError, parseJsonBytes } from '../paging/parse-json-bytes.js';
import { endKeyOf, isPageEntry, type JournalEntry, type JournalPageEntry } from './journal.js';
import { checksumProblem } from './page-checksum.js';
import { columnsFileOf, readStagedFile, removePageFiles } from './staging-files.js';

/** The notice for staged pages that did not read back as their journal lines say: they are fetched again. */
export function brokenPagesNotice(dir: string, broken: readonly { file: string; reason: string }[]): string {
  const [first] = broken;
  return (
    `staging: ${broken.length} staged ${broken.length === 1 ? 'page' : 'pages'} in ${dir} ` +
    `could not be read back (${first!.file}: ${first!.reason}); fetching ${broken.length === 1 ? 'it' : 'them'} again`
  );
}

/** A page whose body is staged. */
type StagedBody = Extract<JournalPageEntry, { file: string }>;

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
export async function dropBrokenPages(
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
export async function dropReadsAfterPass(dir: string, entries: JournalEntry[]): Promise<JournalEntry[]> {
  const cut = entries.findIndex((e) => (e.type === 'collections-page' || e.type === 'collections-end') && e.round >= 2);
  if (cut === -1) return entries;
  for (const entry of entries.slice(cut))
    if (isPageEntry(entry) && entry.file !== null) await removePageFiles(dir, entry.file);
  return entries.slice(0, cut);
}

/**
 * What is wrong with a staged page, or undefined when it is a regular file of the size its journal line records, holds
 * the records the line lists and is the page its checksum names.
 */
async function pageProblem(path: string, page: StagedBody): Promise<string | undefined> {
  const read = await readStagedFile(path, page);
  if ('problem' in read) return read.problem;
  const problem = shapeProblem(read.body, page) ?? checksumProblem(read.body, page.checksum);
  if (problem !== undefined || page.type === 'collections-page' || page.columns === undefined) return problem;
  const columns = await readStagedFile(columnsFileOf(path), page.columns);
  if ('problem' in columns) return `its columns: ${columns.problem}`;
  const columnsProblem = checksumProblem(columns.body, page.columns.checksum);
  return columnsProblem === undefined ? undefined : `its columns: ${columnsProblem}`;
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
