/**
 * Fetches one file to disk, resumably and verified: bytes go to `<path>.part`, which a later attempt continues with a
 * ranged request only when the server proves it is the same file (part-validator.ts); the whole file is checked
 * (verify-image-file.ts), fsync'd and renamed, so a final name only ever holds a verified file. Retries and the token
 * follow the listing's rules.
 */
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ExtractError, type ExtractErrorKinds } from '../extract/paging/extract-error.js';
import type { FileResponse, HttpClient } from '../extract/paging/http-client.js';
import { withRetry, type RetryNotice, type RetryOptions } from '../extract/paging/retry.js';
import { syncFolder } from '../load/file-system/atomic-file.js';
import type { FileStatus } from './file-status.js';
import { imageCheck, verifyImageFile, type FileCheck, type ImageCheck } from './verify-image-file.js';
import { makeFolders } from '../load/file-system/make-folder.js';
import { onPath } from '../load/file-system/file-system-error.js';
import { readPartValidator, removePartValidator, validatorOf, writePartValidator } from './part-validator.js';

/** One file to fetch. */
export interface DownloadTask {
  /** The URL as listed (named in reasons). */
  url: string;
  /** The URL requested: the listed one, on the base URL's scheme. */
  fetchUrl: string;
  /** The final path. */
  path: string;
  /** The size the listing gives, when it gives one. */
  expectedBytes?: number;
}

/** What a download shares with the others of its run. */
export interface DownloadContext {
  client: HttpClient;
  /** Retry policy; the listing's defaults. */
  retry?: RetryOptions;
  /** Stops the download (the `.part` is kept). */
  signal?: AbortSignal;
  /**
   * Told of each chunk written (`bytes`) and what the `.part` holds after it (`held`); told `(0, from)` when a body's
   * writing starts at byte `from` (0: what the `.part` held is gone).
   */
  onBytes?: (bytes: number, held: number) => void;
  /** Told of each retry. */
  onRetry?: (notice: RetryNotice) => void;
}

/** How a download ended. */
export interface DownloadResult {
  status: FileStatus;
  /** Size and SHA-256 of the verified file (status ok). */
  bytes?: number;
  sha256?: string;
  /** Why it is not ok. */
  reason?: string;
}

/** A verification failure of a whole download: retried like a failed request, then reported with its status. */
class Unfit extends ExtractError {
  constructor(
    readonly fileStatus: FileStatus,
    url: string,
    reason: string,
  ) {
    super({ code: 'BAD_BODY', kind: 'unfit', url, reason });
  }
}

/**
 * Fetches one file to its final path; resolves to its status (never throws for the file's own faults; a disk failure or
 * cancellation throws).
 */
export async function downloadFile(task: DownloadTask, ctx: DownloadContext): Promise<DownloadResult> {
  const part = `${task.path}.part`;
  await makeFolders(dirname(task.path));
  let unfit: Unfit | undefined; // the last attempt's verdict on the file (withRetry rewraps the error it ends with)
  const once = async (): Promise<{ bytes: number; sha256: string }> => {
    unfit = undefined;
    try {
      return await attempt(task, part, ctx);
    } catch (err) {
      if (err instanceof Unfit) unfit = err;
      throw err;
    }
  };
  try {
    const check = await withRetry(once, { budgetMs: Number.MAX_SAFE_INTEGER, ...ctx.retry }, ctx.onRetry, ctx.signal);
    return { status: 'ok', bytes: check.bytes, sha256: check.sha256 };
  } catch (err) {
    if (ctx.signal?.aborted === true || !(err instanceof ExtractError) || err.code === 'ABORTED') throw err;
    if (unfit !== undefined) return { status: unfit.fileStatus, reason: err.message };
    if (err.status === 404 || err.status === 410) return { status: 'missing_on_server', reason: err.message };
    return { status: 'failed', reason: err.message };
  }
}

async function attempt(
  task: DownloadTask,
  part: string,
  ctx: DownloadContext,
): Promise<{ bytes: number; sha256: string }> {
  const expected = task.expectedBytes;
  let have = await sizeOf(part);
  if (expected !== undefined && have > expected) have = await restart(part);
  // A body from the first byte is checked as it arrives; a continued one after.
  const inline = expected === undefined || have < expected ? await fetchRest(task, part, have, ctx) : undefined;
  const check = inline === undefined ? await verifyImageFile(part, task.path) : await inline.finish();
  await refuseUnfit(task, part, check);
  await removePartValidator(part); // first: a complete .part left without one is verified, not fetched again
  await rename(part, task.path);
  await syncFolder(dirname(task.path));
  return check;
}

/**
 * Fetches what the `.part` lacks (all of it when its `held` bytes are of no known version) into it; the inline check
 * of a body written from the first byte.
 */
async function fetchRest(
  task: DownloadTask,
  part: string,
  held: number,
  ctx: DownloadContext,
): Promise<ImageCheck | undefined> {
  let have = held;
  const validator = have > 0 ? await readPartValidator(part) : undefined;
  if (have > 0 && validator === undefined) have = await restart(part); // no version to hold the server to
  const response = await ctx.client.getFile(task.fetchUrl, {
    signal: ctx.signal,
    range: have > 0 ? `bytes=${have}-` : undefined,
    ifRange: validator,
  });
  const chunks = receive(response.body); // at once: a body that fails while the .part opens would drop what it holds
  let inline: ImageCheck | undefined;
  try {
    const from = await startingByte(task, part, response, have, validator);
    if (from === 0) {
      await restart(part); // the validator goes with the .part's first byte, not before
      await writePartValidator(part, validatorOf(response));
      inline = imageCheck(task.path);
    }
    await writeBody(task, part, response, chunks, from, ctx, inline);
    return inline;
  } catch (err) {
    inline?.cancel();
    throw err;
  } finally {
    chunks.stop();
  }
}

/** Throws (removing the `.part`) when the whole file has another size than the listing's or fails its check. */
async function refuseUnfit(task: DownloadTask, part: string, check: FileCheck): Promise<void> {
  const expected = task.expectedBytes;
  if (expected !== undefined && check.bytes !== expected) {
    await restart(part);
    const reason = `returned ${check.bytes} bytes where the listing says file_size ${expected}`;
    throw new Unfit('size_mismatch', task.fetchUrl, reason);
  }
  if (check.problem !== undefined) {
    await restart(part);
    throw new Unfit('corrupt', task.fetchUrl, `returned a file that ${check.problem}`);
  }
}

/**
 * Where the response's body starts in the file: the `.part`'s size for a 206 that continues it (of the version the
 * `.part` holds, `validator`), else 0.
 */
async function startingByte(
  task: DownloadTask,
  part: string,
  response: FileResponse,
  have: number,
  validator: string | undefined,
): Promise<number> {
  if (response.status === 416) return refuseUnsatisfiedRange(task, part, response, have);
  if (response.status === 206) return continuedByte(task, part, response, have, validator);
  const expected = task.expectedBytes;
  const length = Number(response.header('content-length') ?? NaN);
  if (expected !== undefined && length === length && length !== expected) {
    response.discard();
    throw sizeMismatch(task, length);
  }
  return 0; // a 200: the whole file, whatever the .part held
}

/** The verdict on a server whose whole file has another size than the listing's. */
function sizeMismatch(task: DownloadTask, total: number): Unfit {
  const says = `serves ${total} bytes where the listing says file_size ${String(task.expectedBytes)}`;
  return new Unfit('size_mismatch', task.fetchUrl, says);
}

/** A 416 to the `.part`'s range: the `.part` goes, and the failure says whether the file's size is the listing's. */
async function refuseUnsatisfiedRange(
  task: DownloadTask,
  part: string,
  response: FileResponse,
  have: number,
): Promise<never> {
  const expected = task.expectedBytes;
  response.discard();
  const total = Number(/^bytes \*\/(\d+)$/.exec(response.header('content-range') ?? '')?.[1] ?? NaN);
  await restart(part);
  if (expected !== undefined && total === total && total !== expected) throw sizeMismatch(task, total);
  throw badBody(task, response, 'bad-range', `answered 416 to a range from byte ${have}`);
}

/** The error for a response whose body the server sent wrong (of `kind`): retried like a failed request. */
function badBody(
  task: DownloadTask,
  response: FileResponse,
  kind: ExtractErrorKinds['BAD_BODY'],
  reason: string,
): ExtractError {
  return new ExtractError({ code: 'BAD_BODY', kind, url: task.fetchUrl, reason, status: response.status });
}

/** The `.part`'s size, for a 206 that continues it with the version it holds; else throws (removing the `.part`). */
async function continuedByte(
  task: DownloadTask,
  part: string,
  response: FileResponse,
  have: number,
  validator: string | undefined,
): Promise<number> {
  const expected = task.expectedBytes;
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.header('content-range') ?? '');
  const [start, end, total] = range === null ? [NaN, NaN, NaN] : [Number(range[1]), Number(range[2]), Number(range[3])];
  if (expected !== undefined && total === total && total !== expected) {
    response.discard();
    throw sizeMismatch(task, total);
  }
  // The range asked for runs to the end of the file (`bytes=<have>-`): one that stops short of it, or whose body has
  // another length than the range, would leave a shorter file to be taken as whole (nothing else checks the length
  // of a file the listing gives no size).
  const length = Number(response.header('content-length') ?? end - start + 1);
  if (start !== have || end !== total - 1 || length !== end - start + 1) {
    response.discard();
    await restart(part);
    const said = JSON.stringify(response.header('content-range') ?? '');
    throw badBody(task, response, 'bad-range', `answered a range from byte ${have} with content-range ${said}`);
  }
  const now = validatorOf(response);
  if (now !== undefined && now !== validator) {
    // A server that ignores If-Range: the range is of another version than the .part's.
    response.discard();
    await restart(part);
    const reason = `answered a range of another version (${now}, the .part holds ${String(validator)})`;
    throw badBody(task, response, 'other-version', `${reason}: fetching it whole`);
  }
  return have;
}

/** Streams the body into the `.part` from byte `from` (truncating what follows), chunk by chunk; fsyncs it. */
async function writeBody(
  task: DownloadTask,
  part: string,
  response: FileResponse,
  chunks: Chunks,
  from: number,
  ctx: DownloadContext,
  check: ImageCheck | undefined,
): Promise<void> {
  const file = await open(part, from > 0 ? 'r+' : 'w');
  const onAbort = (): void => response.discard();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  const declared = Number(response.header('content-length') ?? rangeLength(response));
  try {
    await onPath(part, () => file.truncate(from));
    ctx.onBytes?.(0, from);
    const received = await copyChunks({ task, part, response, file, ctx, check }, chunks, from, declared);
    if (declared === declared && received !== declared)
      throw badBody(task, response, 'truncated', `returned a truncated body (${received} of ${declared} bytes)`);
    await onPath(part, () => file.sync());
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
    await file.close();
  }
}

/** The length of a 206's Content-Range (its body, when it sends no Content-Length); NaN for another answer. */
function rangeLength(response: FileResponse): number {
  const range = /^bytes (\d+)-(\d+)\/\d+$/.exec(response.header('content-range') ?? '');
  return response.status === 206 && range !== null ? Number(range[2]) - Number(range[1]) + 1 : NaN;
}

/** Where a body's chunks go: the open `.part`, and the inline check when there is one. */
interface BodyTarget {
  task: DownloadTask;
  part: string;
  response: FileResponse;
  file: FileHandle;
  ctx: DownloadContext;
  check: ImageCheck | undefined;
}

/** Writes the chunks at byte `from` on until the body ends; the bytes received, or throws its failure. */
async function copyChunks(to: BodyTarget, chunks: Chunks, from: number, declared: number): Promise<number> {
  let received = 0;
  for (;;) {
    const next = await chunks.next();
    if (next === undefined) return received;
    if ('error' in next) throw bodyFailure(to, next.error, received, declared);
    await writeChunk(to, next.chunk, from + received);
    received += next.chunk.length;
    to.ctx.onBytes?.(next.chunk.length, from + received);
  }
}

/** The error for a body that failed: a cancellation, or the client's account of the broken body. */
function bodyFailure(to: BodyTarget, err: unknown, received: number, declared: number): ExtractError {
  if (to.ctx.signal?.aborted === true)
    return new ExtractError({ code: 'ABORTED', url: to.task.fetchUrl, reason: 'was cancelled', cause: err });
  return to.ctx.client.fileBodyError(to.task.fetchUrl, err, received, declared);
}

/** Writes one chunk at `position`, unless it runs past the listing's size (then the `.part` goes). */
async function writeChunk(to: BodyTarget, chunk: Buffer, position: number): Promise<void> {
  const limit = to.task.expectedBytes;
  if (limit !== undefined && position + chunk.length > limit) {
    to.response.discard();
    await restart(to.part);
    const reason = `sent more than the ${limit} bytes the listing gives as file_size`;
    throw new Unfit('size_mismatch', to.task.fetchUrl, reason);
  }
  for (let offset = 0; offset < chunk.length;) {
    const write = () => to.file.write(chunk, offset, chunk.length - offset, position + offset);
    offset += (await onPath(to.part, write)).bytesWritten;
  }
  await to.check?.write(chunk);
}

/** A body's chunks as they arrive (see receive). */
interface Chunks {
  /** The next chunk, the failure, or undefined at the end. */
  next(): Promise<{ chunk: Buffer } | { error: unknown } | undefined>;
  /** Stops listening and closes the body if it has not ended. */
  stop(): void;
}

/**
 * Bytes held in memory before the body is paused (so the socket is): the disk writes more slowly than loopback reads.
 */
const MAX_QUEUED = 1024 * 1024;

/**
 * The body's chunks as they arrive, then its end (undefined) or its failure. Chunks are taken as `data` events and
 * queued, not pulled through the stream's own buffer: a stream destroyed by a failure drops what it buffers, and every
 * byte that reached the process must reach the `.part`, so that a continuation never asks for it again.
 */
function receive(body: FileResponse['body']): Chunks {
  const stream = body as NodeJS.ReadableStream & { destroy(): void };
  const inbox: Inbox = { queue: [], queued: 0, ended: false };
  const stopListening = listen(stream, inbox);
  return {
    next: () => nextChunk(stream, inbox),
    stop(): void {
      stopListening();
      if (!inbox.ended) stream.destroy();
    },
  };
}

/** What a body has delivered and not yet been taken, and how it ended. */
interface Inbox {
  queue: Buffer[];
  /** Bytes in the queue. */
  queued: number;
  ended: boolean;
  failure?: { error: unknown };
  /** Wakes a `next` waiting for the body. */
  wake?: () => void;
}

/** Queues the body's chunks, end and failure in the inbox as they happen; returns what stops listening. */
function listen(stream: NodeJS.ReadableStream & { destroy(): void }, inbox: Inbox): () => void {
  const onData = (chunk: Buffer): void => {
    inbox.queue.push(chunk);
    inbox.queued += chunk.length;
    if (inbox.queued > MAX_QUEUED) stream.pause();
    inbox.wake?.();
  };
  const onEnd = (): void => {
    inbox.ended = true;
    stream.off('close', onClose);
    inbox.wake?.();
  };
  const onError = (error: unknown): void => {
    inbox.failure ??= { error };
    inbox.wake?.();
  };
  // A body destroyed without an error (the connection closed early) only closes: as much a failure as an error.
  const onClose = (): void => onError(new Error('the connection closed before the body ended'));
  stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  // The body may have failed while the .part was being opened, before these listeners: its events are gone.
  const state = stream as unknown as { destroyed: boolean; errored: Error | null; readableEnded: boolean };
  if (state.destroyed && !state.readableEnded)
    onError(state.errored ?? new Error('the connection closed before the body ended'));
  return () => void stream.off('data', onData).off('end', onEnd).off('close', onClose);
}

/** The next chunk in the inbox (resuming a paused body once it drains), else its failure or end, waiting for one. */
async function nextChunk(
  stream: NodeJS.ReadableStream,
  inbox: Inbox,
): Promise<{ chunk: Buffer } | { error: unknown } | undefined> {
  for (;;) {
    const chunk = inbox.queue.shift();
    if (chunk !== undefined) {
      inbox.queued -= chunk.length;
      if (inbox.queued <= MAX_QUEUED / 2 && stream.isPaused()) stream.resume();
      return { chunk };
    }
    if (inbox.failure !== undefined) return inbox.failure;
    if (inbox.ended) return undefined;
    await new Promise<void>((resolve) => (inbox.wake = resolve));
    inbox.wake = undefined;
  }
}

/** Removes a `.part` whose bytes cannot be continued, and its validator; 0, the bytes now held. */
async function restart(part: string): Promise<number> {
  await rm(part, { force: true });
  await removePartValidator(part);
  return 0;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
