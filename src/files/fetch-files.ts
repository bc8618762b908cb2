/**
 * The files run: the images a snapshot selects, their files fetched a few at a time into
 * `<out>/<collection_id>/<path>`, each verified, and files.parquet written with what became of each. A rerun keeps what
 * files.parquet vouches for, checks again what it does not, continues a `.part`; the run fails only for what stops it
 * whole.
 */
import { join } from 'node:path';
import { DiffError } from '../snapshot/diff-error.js';
import { readSnapshotRows, type SnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { HttpClient, type HttpClientOptions } from '../extract/paging/http-client.js';
import type { RetryOptions } from '../extract/paging/retry.js';
import { fileSystemError } from '../load/file-system/file-system-error.js';
import { makeFolder } from '../load/file-system/make-folder.js';
import { releaseRunLock, takeRunLock } from '../load/file-system/run-lock.js';
import type { SinkResult } from '../load/sink-result.js';
import type { Format } from '../snapshot/formats.js';
import type { FileRow } from './file-status.js';
import { FilesError } from './files-error.js';
import type { FilesEvent } from './files-events.js';
import { readVerifiedFiles, removeStaleTables } from './files-table.js';
import { readLedger, writeLedger } from './verified-ledger.js';
import { writeFilesTables } from './write-files-tables.js';
import { mapConcurrently } from './map-concurrently.js';
import { onBase } from './on-base.js';
import { PathClaims } from './path-claims.js';
import { EXTRA_LINKS, type ExtraLinkGroup } from './extra-links.js';
import { SELECTION_COLUMNS, selectImages, type SelectedImage } from './select-images.js';
import { UnmatchedValues } from './unmatched-values.js';
import { emptyTally, settleFile, type FilesTally, type Job, type SettleRun } from './settle-file.js';
import { tokenGoesTo } from './token-host.js';
import { parseWhere, type WhereCondition } from './where-condition.js';
import { DEFAULT_FILES_CONCURRENCY } from '../extract/defaults.js';
import { targetPath } from './target-path.js';
import { nilearnPath, partialCollections, writeNilearnMetadata } from './nilearn/nilearn-folder.js';

/** Options of `fetchFiles`. */
export interface FetchFilesOptions {
  /** A snapshot folder, a `--snapshot` base folder (its latest), or an images.parquet/.arrow file; required. */
  snapshot: string;
  /** Folder the files and files.parquet go to (created if missing); required. */
  outDir: string;
  /** The formats the files table is written in (files.parquet, files.arrow, files.csv); default parquet alone. */
  formats?: readonly Format[];
  /** Conditions that must all hold (`"map_type = 'T map'"`, parsed or as text); default none (every image). */
  where?: readonly (string | WhereCondition)[];
  /** Files fetched at once; default 2. */
  concurrency?: number;
  /**
   * Where the files go: `folders`, `<out>/<collection_id>/<path>`; `nilearn`, nilearn's NeuroVault folder with each
   * image's and collection's record (nilearn/nilearn-folder.ts). Default `folders`.
   */
  layout?: 'folders' | 'nilearn';
  /** Every image of each collection the selection touches; default false. */
  wholeCollections?: boolean;
  /** Other links of each image to fetch too; default none. */
  with?: readonly ExtraLinkGroup[];
  /** Re-hash every kept file, also one whose size and mtime are as files.parquet records; default false. */
  verify?: boolean;
  /**
   * The service files are fetched from: links must be on its host; default the snapshot's `img-etl.source_url`, which
   * is sent `http.token` only when it is the default service (https://neurovault.org).
   */
  baseUrl?: string;
  /** HTTP client options (timeouts, token); the listing's defaults. */
  http?: HttpClientOptions;
  /** Retry policy; the listing's defaults. */
  retry?: RetryOptions;
  /** Stops the run; `.part` files are kept for the next. */
  signal?: AbortSignal;
  /** Told what happens; default nothing. */
  onEvent?: (event: FilesEvent) => void;
}

/**
 * What a files run did: its tally (files by status, those fetched and their bytes, those kept from disk, those the
 * listing marks as lost, `file_size` 0: counted among `missing_on_server`, never requested, and no reason for a run to
 * fail), and the following.
 */
export interface FilesResult extends FilesTally {
  /** The selection: files and listed bytes. */
  selected: { files: number; bytes: number };
  /** The files table as written: its first format's file (files.parquet by default). */
  table: SinkResult;
  /** The files table in each format written, in the order of `formats`. */
  tables: SinkResult[];
  /** Milliseconds the run took. */
  durationMs: number;
}

/**
 * The selection of a snapshot without fetching: files, listed bytes, and how many are 0 bytes (missing on the server).
 */
export interface FilesPlan {
  /** Every file a run would fetch: the maps and their `--with` links. */
  files: number;
  /** The maps' listed bytes (`file_size`): the listing gives no size for a `--with` link. */
  bytes: number;
  /** The `--with` links among `files`, whose size is unknown and not in `bytes`. */
  unsized: number;
  missing: number;
  /** The service the files come from. */
  baseUrl: string;
  /** The link of the largest selected file, on the service's scheme: what a dry run measures. */
  sample?: string;
}

/**
 * Selected images a files run keeps from counting the selection, so that it need not read the snapshot again while
 * it fetches (a selection of more is read again, a batch at a time).
 */
const KEPT_SELECTION = 10_000;

/** Counts the files a snapshot selects and their listed bytes. */
export async function planFiles(options: Selection): Promise<FilesPlan> {
  return (await planSelection(await widened(options), 0)).plan;
}

/**
 * The plan of a selection, the data file it was read from, and the selected images themselves when there are no more
 * than `keep`; an `unmatched` event for each value asked of a category column that no image has but in another case.
 */
async function planSelection(
  options: Selection,
  keep: number,
): Promise<{ plan: FilesPlan; path: string; images: SelectedImage[] | undefined; collections: Map<number, number> }> {
  const where = conditions(options.where);
  const unmatched = new UnmatchedValues(where);
  const rows = await openSnapshot(options.snapshot, neededColumns(where, options.with));
  const plan: FilesPlan = { files: 0, bytes: 0, unsized: 0, missing: 0, baseUrl: baseUrlOf(rows, options.baseUrl) };
  const collections = new Map<number, number>(); // selected images of each collection, files lost on the server aside
  let kept: SelectedImage[] | undefined = [];
  let largest = 0;
  try {
    for await (const images of selectImages(rows, where, extraKeys(options.with), unmatched)) {
      if (kept !== undefined && kept.length + images.length <= keep) kept.push(...images);
      else kept = undefined;
      for (const image of images) {
        plan.files += 1 + image.extras.length;
        plan.unsized += image.extras.length;
        plan.bytes += image.fileSize ?? 0;
        if (image.fileSize === 0) plan.missing++;
        const at = image.collectionId;
        if (at !== null) collections.set(at, (collections.get(at) ?? 0) + (image.fileSize === 0 ? 0 : 1));
        if ((image.fileSize ?? 0) > largest && image.file !== null) {
          largest = image.fileSize ?? 0;
          plan.sample = onBase(image.file, new URL(plan.baseUrl));
        }
      }
    }
  } finally {
    await rows.close();
  }
  for (const message of unmatched.lines()) options.onEvent?.({ type: 'unmatched', message });
  return { plan, path: rows.path, images: kept, collections };
}

/** What selects the files. */
type Selection = Pick<FetchFilesOptions, 'snapshot' | 'where' | 'wholeCollections' | 'with' | 'baseUrl' | 'onEvent'>;

/** The selection, with `wholeCollections` widened to every image of the collections it touches. */
async function widened<T extends Selection>(options: T): Promise<T> {
  if (options.wholeCollections !== true) return options;
  const where = conditions(options.where);
  const rows = await openSnapshot(options.snapshot, neededColumns(where, undefined));
  const ids = new Set<number>();
  try {
    for await (const images of selectImages(rows, where)) for (const image of images) ids.add(image.collectionId ?? 0);
  } finally {
    await rows.close();
  }
  ids.delete(0);
  return ids.size === 0 ? options : { ...options, where: [parseWhere(`collection_id in (${[...ids].join(', ')})`)] };
}

/**
 * Fetches the files a snapshot selects and writes files.parquet; resolves to what it did. Holds a lock on the output
 * folder while it runs: throws a FILES_LOCKED FilesError when another live run holds it.
 */
export async function fetchFiles(given: FetchFilesOptions): Promise<FilesResult> {
  const started = Date.now();
  const options = await widened(given);
  const planned = await planSelection(options, KEPT_SELECTION);
  await makeFolder(options.outDir, 'files');
  const lock = join(options.outDir, LOCK);
  try {
    const taken = await takeRunLock(lock);
    if (!taken.taken)
      throw FilesError.of(
        'FILES_LOCKED',
        `files: ${options.outDir} is in use by another img-etl run (${taken.holder})`,
      );
    try {
      if (taken.tookOver !== undefined)
        options.onEvent?.({ type: 'lock', message: `files: took over the stale lock ${lock} (${taken.tookOver})` });
      return await fetchPlanned(options, planned, started);
    } finally {
      await releaseRunLock(lock);
    }
  } catch (cause) {
    // A file-system call that fails (a full disk) is one line naming the file it was on, else the output folder.
    throw fileSystemError({ stage: 'files', action: 'write to', path: options.outDir, cause });
  }
}

/** The lock file of a files run in its output folder. */
const LOCK = '.img-etl-files.lock';

/** The files run once its plan is made and it holds the output folder. */
async function fetchPlanned(
  options: FetchFilesOptions,
  { plan, path, images: selected, collections }: Awaited<ReturnType<typeof planSelection>>,
  started: number,
): Promise<FilesResult> {
  options.onEvent?.({ type: 'plan', files: plan.files, bytes: plan.bytes });
  await removeStaleTables(options.outDir);
  // the table vouches over the record of files it no longer lists
  const verified = new Map([...(await readLedger(options.outDir)), ...(await readVerifiedFiles(options.outDir))]);
  const rows =
    selected === undefined
      ? await openSnapshot(options.snapshot, neededColumns(conditions(options.where), options.with))
      : undefined;
  const base = new URL(plan.baseUrl);
  const client = filesClient(options, plan.baseUrl, base);
  const run = settleRun(options, base, client, verified);
  const nilearn = options.layout === 'nilearn';
  const notice = (message: string) => options.onEvent?.({ type: 'notice', message });
  try {
    const partial = nilearn ? await partialCollections(path, collections, notice) : [];
    const batches =
      rows === undefined ? [selected!] : selectImages(rows, conditions(options.where), extraKeys(options.with));
    const settled = mapConcurrently(jobsOf(batches), options.concurrency ?? DEFAULT_FILES_CONCURRENCY, (job) =>
      settleFile(job, run),
    );
    const metadata = {
      'img-etl.snapshot': path,
      'img-etl.source_url': plan.baseUrl,
      ...(nilearn ? { 'img-etl.partial_collections': JSON.stringify(partial) } : {}),
    };
    const listedOk = new Set<string>();
    const placed = new Map<number, number>();
    const fileRows = okPaths(settled, options.outDir, listedOk, placed);
    const tables = await writeFilesTables(fileRows, options.outDir, metadata, options.formats);
    if (nilearn) {
      const { retry, outDir } = options;
      const touched = new Set(collections.keys());
      await writeNilearnMetadata({ snapshot: path, outDir, placed, touched, client, retry, notice });
    }
    await writeLedger(options.outDir, verified, listedOk);
    return {
      ...run.tally,
      selected: { files: plan.files, bytes: plan.bytes },
      table: tables[0]!,
      tables,
      durationMs: Date.now() - started,
    };
  } finally {
    await rows?.close();
    await client.close();
  }
}

/**
 * The client of a files run, `concurrency` connections to the service; it is given the token only when the token goes
 * to that service (else a `token-withheld` event says so).
 */
function filesClient(options: FetchFilesOptions, baseUrl: string, base: URL): HttpClient {
  const { token, ...http } = options.http ?? {};
  const sendToken = token !== undefined && tokenGoesTo(baseUrl, options.baseUrl !== undefined);
  if (token !== undefined && !sendToken) options.onEvent?.({ type: 'token-withheld', baseUrl });
  return new HttpClient(base, {
    connections: options.concurrency ?? DEFAULT_FILES_CONCURRENCY,
    ...http,
    ...(sendToken ? { token } : {}),
  });
}

/** What settling each file of the run reads from it, with a tally and the paths taken yet empty. */
function settleRun(
  options: FetchFilesOptions,
  base: URL,
  client: HttpClient,
  verified: SettleRun['verified'],
): SettleRun {
  return {
    outDir: options.outDir,
    verify: options.verify === true,
    base,
    client,
    retry: options.retry,
    signal: options.signal,
    verified,
    paths: new PathClaims(options.outDir),
    target:
      options.layout === 'nilearn'
        ? (image, url) => nilearnPath(options.outDir, image, url)
        : (image, url) => targetPath(options.outDir, image.collectionId, url, image.id),
    tally: emptyTally(),
    onEvent: options.onEvent ?? (() => undefined),
  };
}

/** The files to settle: each selected image's file, then its extra links'. */
async function* jobsOf(batches: Iterable<SelectedImage[]> | AsyncIterable<SelectedImage[]>): AsyncGenerator<Job> {
  for await (const images of batches) {
    for (const image of images) {
      yield { image, link: 'file', url: image.file };
      for (const extra of image.extras) yield { image, link: extra.key, url: extra.url };
    }
  }
}

/**
 * The rows as they pass, in pages of a thousand, adding the path of each `ok` one (joined to `outDir`) to `into`, and
 * the collection of each image whose file is ok to `placed`.
 */
async function* okPaths(
  rows: AsyncIterable<FileRow>,
  outDir: string,
  into: Set<string>,
  placed: Map<number, number>,
): AsyncGenerator<FileRow[]> {
  const page: FileRow[] = [];
  for await (const row of rows) {
    if (row.status === 'ok' && row.path !== null) into.add(join(outDir, row.path));
    if (row.status === 'ok' && row.link === 'file' && row.collection_id !== null) placed.set(row.id, row.collection_id);
    page.push(row);
    if (page.length === 1000) yield page.splice(0);
  }
  yield page;
}

function conditions(where: FetchFilesOptions['where']): WhereCondition[] {
  return (where ?? []).map((c) => (typeof c === 'string' ? parseWhere(c) : c));
}

function extraKeys(groups: FetchFilesOptions['with']): string[] {
  return (groups ?? []).flatMap((group) => [...EXTRA_LINKS[group]]);
}

function baseUrlOf(rows: SnapshotRows, given: string | undefined): string {
  const source = given ?? rows.schema.metadata.get('img-etl.source_url');
  if (source === undefined)
    throw FilesError.of(
      'FILES_UNREADABLE',
      `files: ${rows.path} does not say which service it was taken from ` +
        '(no img-etl.source_url); give the base URL',
    );
  try {
    return new URL(source).origin;
  } catch (cause) {
    throw FilesError.of(
      'FILES_UNREADABLE',
      `files: ${rows.path}: the source URL ${JSON.stringify(source)} is not a URL`,
      cause,
    );
  }
}

/** The columns a selection reads: what fetching needs, the conditions' and the extra links'. */
function neededColumns(where: readonly WhereCondition[], groups: FetchFilesOptions['with']): string[] {
  return [...new Set([...SELECTION_COLUMNS, ...where.map((c) => c.column.name), ...extraKeys(groups)])];
}

/** Opens a snapshot for reading `columns`, with the files stage's errors. */
async function openSnapshot(path: string, columns: readonly string[]): Promise<SnapshotRows> {
  try {
    return await readSnapshotRows(path, { columns, batchSize: 1024 });
  } catch (err) {
    if (!(err instanceof DiffError)) throw err;
    const code =
      err.code === 'DIFF_NOT_FOUND' || err.code === 'DIFF_NOT_SNAPSHOT' ? 'FILES_NOT_SNAPSHOT' : 'FILES_UNREADABLE';
    throw FilesError.of(code, err.message.replace(/^diff: /, 'files: '), err);
  }
}
