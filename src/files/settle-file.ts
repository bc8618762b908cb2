/** Settling one file of a files run: kept from disk, fetched, or reported with why not; counted and told. */
import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { HttpClient } from '../extract/paging/http-client.js';
import type { RetryOptions } from '../extract/paging/retry.js';
import { isFile } from '../load/file-system/path-kind.js';
import { downloadFile, type DownloadContext, type DownloadResult } from './download-file.js';
import type { FileRow, FileStatus } from './file-status.js';
import type { FilesEvent } from './files-events.js';
import type { VerifiedFile } from './files-table.js';
import { keptFile } from './kept-file.js';
import { onBase } from './on-base.js';
import { pathInTheWay } from './path-in-the-way.js';
import type { PathClaims } from './path-claims.js';
import type { SelectedImage } from './select-images.js';

/** One file to settle. */
export interface Job {
  image: SelectedImage;
  link: string;
  url: string | null;
}

/** What a files run has counted so far (see emptyTally). */
export type FilesTally = ReturnType<typeof emptyTally>;

/** What settling a file reads from its run, and the tally it adds to. */
export interface SettleRun {
  /** The run's output folder. */
  outDir: string;
  /** Re-hash every kept file, also one whose size and mtime are as files.parquet records. */
  verify: boolean;
  /** The service: links must be on its host. */
  base: URL;
  client: HttpClient;
  retry: RetryOptions | undefined;
  signal: AbortSignal | undefined;
  /** The files files.parquet vouches for, by path. */
  verified: Map<string, VerifiedFile>;
  /** The paths of the files settled so far (two selected files may not share one, nor one be another's folder). */
  paths: PathClaims;
  /** Where an image's link's file goes in the run's layout, or why it cannot go there. */
  target: (image: SelectedImage, url: string) => { path: string } | { problem: string };
  tally: FilesTally;
  onEvent: (event: FilesEvent) => void;
}

/** How a file ended, and whether it was fetched over the network. */
interface Outcome {
  result: DownloadResult & { mtimeNs?: bigint };
  fetched: boolean;
}

/** A tally with nothing counted. */
export function emptyTally() {
  return {
    /** Files by status. */
    counts: { ok: 0, missing_on_server: 0, size_mismatch: 0, corrupt: 0, failed: 0 } satisfies Record<
      FileStatus,
      number
    >,
    /** Files fetched over the network, and their bytes. */
    fetched: { files: 0, bytes: 0 },
    /** Files kept from disk without a request. */
    kept: 0,
    /** Files the listing marks as lost (`file_size` 0): `missing_on_server`, never requested. */
    lost: 0,
  };
}

/** Settles one file: kept from disk, fetched, or reported with why not; counted and told as a `file` event. */
export async function settleFile(job: Job, run: SettleRun): Promise<FileRow> {
  const listed = job.link === 'file' ? (job.image.fileSize ?? undefined) : undefined;
  const { path, result, fetched } = await outcomeOf(job, listed, run);
  const row: FileRow = {
    id: job.image.id,
    collection_id: job.image.collectionId,
    link: job.link,
    url: job.url,
    path: path === null ? null : relative(run.outDir, path), // as files.parquet gives it: relative to the folder
    bytes: result.bytes ?? null,
    sha256: result.sha256 ?? null,
    mtime_ns: result.mtimeNs ?? null,
    status: result.status,
    reason: result.reason ?? null,
  };
  run.tally.counts[row.status]++;
  run.onEvent({ type: 'file', row, fetched, listedBytes: listed ?? 0 });
  return row;
}

/** The outcome of a file and its path on disk: null when it has no link or the link gives no path. */
async function outcomeOf(
  job: Job,
  listed: number | undefined,
  run: SettleRun,
): Promise<Outcome & { path: string | null }> {
  const { image, url } = job;
  // A file the listing marks as lost (file_size 0) is that, whatever its link: never requested, never exit code 3.
  if (url === null)
    return {
      path: null,
      ...(listed === 0 ? lost(run) : notFetched('missing_on_server', 'the record has no file link')),
    };
  const target = run.target(image, url);
  if ('problem' in target)
    return { path: null, ...(listed === 0 ? lost(run) : notFetched('failed', `files: ${target.problem}`)) };
  return { path: target.path, ...(await outcomeAt(target.path, { ...job, url }, listed, run)) };
}

/**
 * The outcome of a file with a path: refused (lost on the server, something on disk in the way, a path another
 * selected file takes), kept from disk, or fetched. The path is claimed only once nothing on disk is in its way, so a
 * link refused for what an earlier run left does not hold back one that the folder already serves.
 */
async function outcomeAt(
  path: string,
  job: Job & { url: string },
  listed: number | undefined,
  run: SettleRun,
): Promise<Outcome> {
  if (listed === 0) return lost(run);
  const blocked = await pathInTheWay(run.outDir, path);
  if (blocked !== undefined) return notFetched('failed', `files: ${blocked}`);
  const taken = run.paths.claim(path); // after the last await before the fetch: no other file passes it meanwhile
  if (taken !== undefined) return notFetched('failed', `files: ${taken}`);
  return (await onDiskOutcome(path, job, listed, run)) ?? (await fetchedOutcome(job.url, path, listed, run));
}

/**
 * The outcome decided by what is on disk: refused when the path holds another image's verified file, kept when the
 * file there is verified; undefined to fetch it.
 */
async function onDiskOutcome(
  path: string,
  job: Job,
  listed: number | undefined,
  run: SettleRun,
): Promise<Outcome | undefined> {
  const owner = run.verified.get(path);
  if (owner !== undefined && (owner.id !== job.image.id || owner.link !== job.link) && (await isFile(path))) {
    const what = owner.link === 'file' ? 'file' : `${owner.link} file`;
    return notFetched(
      'failed',
      `files: ${path} holds the verified ${what} of image ${owner.id}; move it to fetch this one`,
    );
  }
  const onDisk = await keptFile(path, listed, owner, run.verify);
  if (onDisk === 'theirs')
    return notFetched('failed', `files: ${path} is a file img-etl did not write; move it to fetch this one`);
  if (onDisk === undefined) return undefined;
  run.tally.kept++;
  return { result: { status: 'ok', ...onDisk }, fetched: false };
}

/** Fetches the file to its path when its link is on the service's host; an ok file's mtime is recorded. */
async function fetchedOutcome(url: string, path: string, listed: number | undefined, run: SettleRun): Promise<Outcome> {
  const fetchUrl = onBase(url, run.base);
  if (fetchUrl === undefined)
    return notFetched('failed', `files: ${url} is not on the service's host (${run.base.host}); refusing to fetch it`);
  const result = await downloadFile(
    { url, fetchUrl, path, expectedBytes: listed },
    downloadContext(run, relative(run.outDir, path), listed ?? 0),
  );
  if (result.status !== 'ok') return { result, fetched: true };
  run.tally.fetched.files++;
  return { result: { ...result, mtimeNs: (await stat(path, { bigint: true })).mtimeNs }, fetched: true };
}

/**
 * The run's client and retry policy for a download of the file at `path` (relative to the folder), its bytes and
 * retries told as the run's events.
 */
function downloadContext(run: SettleRun, path: string, listedBytes: number): DownloadContext {
  return {
    client: run.client,
    retry: run.retry,
    signal: run.signal,
    onBytes: (bytes, held) => {
      run.tally.fetched.bytes += bytes;
      run.onEvent({ type: 'bytes', bytes, path, held, listedBytes });
    },
    onRetry: ({ attempt, delayMs, error: { url, reason } }) =>
      run.onEvent({ type: 'retry', url, attempt, delayMs, reason }),
  };
}

/** A file the listing marks as lost (`file_size` 0): counted as such, never requested. */
function lost(run: SettleRun): Outcome {
  run.tally.lost++;
  return notFetched('missing_on_server', 'file_size is 0: the server has lost the file');
}

/** A file settled without a request. */
function notFetched(status: FileStatus, reason: string): Outcome {
  return { result: { status, reason }, fetched: false };
}
