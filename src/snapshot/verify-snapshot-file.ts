/**
 * Checking a snapshot's data file against the manifest beside it before it is read: the manifest's record counts
 * against one another and against the rows it lists for the file, the file's size, then its sha256 (a flipped byte
 * would otherwise reach parquet-wasm, which can panic on it), and its rows once a reader knows them. A
 * file no img-etl manifest lists (a data file copied elsewhere, a run's pending folder) has nothing to be checked
 * against. Every reader of snapshot files (diff, report, files, the drift of a run) checks through here.
 */
import { basename, dirname, join } from 'node:path';
import { digestOf } from '../load/file-system/file-digest.js';
import { openRegularFile, whyUnreadable } from '../load/file-system/read-regular-file.js';
import { FILE_NAMES, FORMATS } from './formats.js';
import { readManifestOrFault } from './read-manifest.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import { DiffError } from './diff-error.js';

/** What a manifest records of one of its files: the manifest that lists it, the file's rows, bytes and sha256. */
export type ListedFile = NonNullable<Awaited<ReturnType<typeof listedFile>>>;

/**
 * The manifest's record of the data file at `path`, once its size and sha256 were found equal to it; undefined when
 * no img-etl manifest beside it lists the file. A DiffError naming the file, what the manifest gives and what was
 * found when they differ.
 */
export async function verifySnapshotFile(path: string): Promise<ListedFile | undefined> {
  const listed = await listedFile(path);
  if (listed === undefined) return undefined;
  let found: { bytes: number; sha256?: string };
  try {
    const file = await openRegularFile(path, { followLink: true });
    found = { bytes: file.size };
    if (found.bytes === listed.bytes) found = await digestOf(file.handle);
    else await file.handle.close();
  } catch (cause) {
    throw DiffError.of('DIFF_UNREADABLE', `diff: ${whyUnreadable(path, cause)}`, cause);
  }
  if (found.bytes !== listed.bytes) throw mismatch(path, listed, `${listed.bytes} bytes`, `${found.bytes} bytes`);
  if (found.sha256 !== listed.sha256)
    throw mismatch(path, listed, `sha256 ${listed.sha256}`, `sha256 ${String(found.sha256)}`);
  return listed;
}

/** Throws a DiffError when a reader found `rows` rows in a file its manifest (`listed`) gives another number for. */
export function checkListedRows(path: string, listed: ListedFile | undefined, rows: number): void {
  if (listed !== undefined && rows !== listed.rows) throw mismatch(path, listed, `${listed.rows} rows`, `${rows} rows`);
}

function mismatch(path: string, listed: ListedFile, says: string, found: string): DiffError {
  return DiffError.of(
    'DIFF_MISMATCH',
    `diff: ${path} does not match its manifest: ${listed.manifest} gives ${says}, the file has ${found}`,
  );
}

/**
 * The manifest's record of the data file at `path` (its size and sha256 unchecked), or undefined when no img-etl
 * manifest beside it lists it; a DiffError when the manifest lists it without its rows, bytes and sha256, or its
 * record counts contradict one another or the rows it lists for the file.
 */
export async function listedFile(path: string) {
  const manifest = join(dirname(path), FILE_NAMES.manifest);
  const read = await readManifestOrFault(manifest);
  if (read.fault !== undefined)
    throw DiffError.of(
      'DIFF_MISMATCH',
      `diff: ${manifest} does not read as JSON (${read.fault}): the files beside it cannot be checked`,
    );
  const facts = read.manifest as Record<string, unknown> | undefined;
  if (facts === undefined) return undefined;
  const entry = (facts['files'] as Record<string, unknown>[] | undefined)?.find((f) => f['name'] === basename(path));
  if (entry === undefined) return undefined;
  const { rows, bytes, sha256 } = entry;
  if (typeof rows !== 'number' || typeof bytes !== 'number' || typeof sha256 !== 'string')
    throw DiffError.of(
      'DIFF_MISMATCH',
      `diff: ${manifest} lists ${basename(path)} without its rows, bytes and sha256: it cannot be checked`,
    );
  const contradiction = countsContradiction(facts) ?? recordsContradiction(facts, basename(path), rows);
  if (contradiction !== undefined)
    throw DiffError.of('DIFF_MISMATCH', `diff: ${manifest} ${contradiction}: the manifest does not match its files`);
  return { manifest, rows, bytes, sha256 };
}

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/**
 * How the manifest's records_written (or its collections' records_written) differs from the rows it lists for `name`,
 * a data file of that table, if it does: every data file of a table holds the rows written.
 */
function recordsContradiction(facts: Record<string, unknown>, name: string, rows: number): string | undefined {
  const collections = facts['collections'] as Record<string, unknown> | undefined;
  const [written, key] = FORMATS.some((f) => IMAGES.files[f] === name)
    ? [num(facts['records_written']), 'records_written']
    : FORMATS.some((f) => COLLECTIONS.files[f] === name)
      ? [num(collections?.['records_written']), 'collections.records_written']
      : [undefined, ''];
  if (written === undefined || written === rows) return undefined;
  return `gives ${key} ${written}, and ${rows} rows for ${name}`;
}

/**
 * How the manifest's counts contradict one another, if they do, by the rules every run's manifest keeps (counts it
 * lacks are not checked): records received are those written, rejected, or left out by a row stage (`--where`); the
 * missing are at least those expected and not received; complete means none missing; the count at the end is the
 * count expected. count_at_start has no rule: the service's count may change during a run.
 */
function countsContradiction(facts: Record<string, unknown>): string | undefined {
  const [written, rejects, received] = [facts['records_written'], facts['rejects'], facts['received']].map(num);
  const [expected, missing, atEnd] = [facts['expected'], facts['missing'], facts['count_at_end']].map(num);
  const complete = facts['complete'];
  if (received !== undefined && written !== undefined && rejects !== undefined && received < written + rejects)
    return `gives received ${received}, fewer than records_written ${written} and rejects ${rejects} together`;
  if (missing !== undefined && expected !== undefined && received !== undefined && missing < expected - received)
    return `gives missing ${missing}, fewer than expected ${expected} less received ${received}`;
  if (typeof complete === 'boolean' && missing !== undefined && complete !== (missing === 0))
    return `gives complete ${complete} with missing ${missing}`;
  if (atEnd !== undefined && expected !== undefined && atEnd !== expected)
    return `gives count_at_end ${atEnd}, and expected ${expected}: the count expected is the last one seen`;
  return undefined;
}
