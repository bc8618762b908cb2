/**
 * /media/images/<collection>/…: the image files and the other linked files of the listed records, served as
 * NeuroVault's nginx serves its media folder (no Django worker, no latency): HEAD, single byte ranges (206 with
 * Content-Range, 416 past the end), ETag and Accept-Ranges; 404 for a path no record links to and for an image
 * whose `file_size` is 0 (the server lost it). The file fault knobs act here: a cut body, a file of another length,
 * a changed byte, an ignored Range, and a cap on the bytes per second a response is sent at.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectionImageIds } from '../collections/collection-image-ids.js';
import { extraFile } from './extra-file.js';
import { DJANGO_FORBIDDEN, nginxPage } from '../http/error-pages.js';
import { decideFileFault } from '../faults/faults.js';
import { niftiGzipFile } from './nifti-gzip-file.js';
import { carriesEffect, plantedFile } from './planted-map.js';
import { parseByteRange } from './byte-range.js';
import type { ServedFile } from './served-file.js';
import { send } from '../http/respond.js';
import { countStatus, type ServiceContext } from '../service-context.js';
import type { FileResponse } from '../service-stats.js';

// serve_image's collection part: a number or a private token (get_collection tells them apart).
const MEDIA = /^\/media\/images\/(\d+|[A-Z]{8})\/./;
/** The record keys whose links the media folder serves, besides `file`. */
const EXTRA_LINKS = ['thumbnail', 'surface_left_file', 'surface_right_file', 'reduced_representation'] as const;
const NGINX_PAGE = (status: string): { type: string; text: string } => ({ type: 'text/html', text: nginxPage(status) });
/** Django's page for the PermissionDenied of get_collection (a private collection named by its number). */
const FORBIDDEN_PAGE = { type: 'text/html; charset=utf-8', text: DJANGO_FORBIDDEN };
/** Bytes a file written with the wrong-length fault differs by. */
const WRONG_BY = 4096;

/** What a media path points to: an image's file (with its listed size) or another of its links. */
interface MediaTarget {
  id: number;
  /** `file`, or the key of the other link. */
  kind: string;
  /** The listed `file_size` (images only). */
  fileSize?: number;
  /** Whether the image's map carries the planted effect (under that knob). */
  carries?: boolean;
}

/** Whether a request path is under /media/. */
export function isMediaPath(path: string): boolean {
  return path.startsWith('/media/');
}

/** Serves GET or HEAD of a media path (other methods: 405); never throws. */
export async function serveMedia(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return void page(ctx, res, 405, NGINX_PAGE('405 Not Allowed'));
  ctx.stats.files.requests++;
  const n = ++ctx.fileRequests;
  const collection = mediaCollection(ctx, path);
  if (collection?.refused) return void page(ctx, res, 403, FORBIDDEN_PAGE, { path, method });
  const target = collection === undefined ? undefined : findTarget(ctx, collection.cid, path);
  if (target === undefined || target.fileSize === 0)
    return void page(ctx, res, 404, NGINX_PAGE('404 Not Found'), { path, method });
  const range = req.headers.range;
  const { kind: fault, cutAt } = decideFileFault(ctx.faults, { method, path, range, n });
  const file = servedFile(ctx, target, fault, path.slice(path.lastIndexOf('/') + 1));
  const asked = range === undefined || fault === 'ignore-range' ? undefined : parseByteRange(range, file.size);
  if (asked === 'unsatisfiable') {
    const title = '416 Requested Range Not Satisfiable';
    const contentRange = { 'Content-Range': `bytes */${file.size}` };
    return void page(ctx, res, 416, NGINX_PAGE(title), { path, method, range }, contentRange);
  }
  const [start, end] = asked === undefined ? [0, file.size] : [asked.start, asked.end];
  const status = asked === undefined ? 200 : 206;
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    ETag: `"${target.id.toString(16)}-${file.size.toString(16)}"`,
    'Accept-Ranges': 'bytes',
  };
  if (status === 206) headers['Content-Range'] = `bytes ${start}-${end - 1}/${file.size}`;
  headers['Content-Length'] = String(end - start);
  countStatus(ctx, status);
  res.writeHead(status, headers);
  const entry: FileResponse = {
    path,
    method,
    status,
    ...(range === undefined ? {} : { range }),
    start,
    sent: 0,
    fault,
  };
  await sendFile(ctx, res, file, entry, end, fault === 'truncate' ? cutAt : undefined);
}

/**
 * The file a target serves: an image's gzipped NIfTI (a planted-effect map under that knob; of another length under
 * the wrong-length fault) or a link's.
 */
function servedFile(ctx: ServiceContext, target: MediaTarget, fault: string, name: string): ServedFile {
  if (target.kind !== 'file') return extraFile(target.id, target.kind, name);
  const size = (target.fileSize ?? 0) + (fault === 'wrong-length' ? WRONG_BY : 0);
  const effect = ctx.plantedEffect;
  if (effect === undefined) return niftiGzipFile(target.id, size);
  return plantedFile(ctx.dataset.seed, target.id, size, target.carries === true ? effect : undefined);
}

/**
 * Ends a HEAD response; sends a GET's body up to `end` (cut at `cutAt` of it under the truncate fault, a byte changed
 * under the corrupt fault) and ends or drops the connection; logs the response however it went.
 */
async function sendFile(
  ctx: ServiceContext,
  res: ServerResponse,
  file: ServedFile,
  entry: FileResponse,
  end: number,
  cutAt: number | undefined,
): Promise<void> {
  if (entry.method === 'HEAD') {
    res.end();
    ctx.stats.files.log.push(entry);
    return;
  }
  const start = entry.start;
  const stopAt = cutAt !== undefined ? start + Math.floor((end - start) * cutAt) : end;
  const corruptAt = entry.fault === 'corrupt' ? start + Math.floor((end - start) / 2) : -1;
  try {
    await sendBody(ctx, res, file, start, stopAt, corruptAt, entry);
    if (stopAt < end) {
      // What was sent reaches the client before the connection drops, so a client can count on every byte it got.
      await new Promise<void>((resolve) => (res.socket === null ? resolve() : res.socket.write('', () => resolve())));
      res.destroy();
    } else res.end();
  } catch {
    res.destroy();
  } finally {
    ctx.stats.files.log.push(entry);
  }
}

/**
 * Writes bytes [start, stopAt) of the file, honouring back-pressure and the bytes-per-second cap; stops if the client
 * goes.
 */
async function sendBody(
  ctx: ServiceContext,
  res: ServerResponse,
  file: ServedFile,
  start: number,
  stopAt: number,
  corruptAt: number,
  entry: FileResponse,
): Promise<void> {
  const began = Date.now();
  let at = start;
  const cap = ctx.faults.fileBytesPerSecond;
  // Small pieces under a cap, so that the rate holds within a fraction of a second.
  const piece = cap > 0 ? Math.max(1024, Math.min(64 * 1024, Math.floor(cap / 20))) : 64 * 1024;
  for (const chunk of file.read(start, stopAt)) {
    for (let p = 0; p < chunk.length; p += piece) {
      if (gone(res) || ctx.closing.aborted) throw new Error('service: the client went away');
      let bytes = chunk.subarray(p, p + piece);
      if (corruptAt >= at && corruptAt < at + bytes.length) {
        bytes = Buffer.from(bytes);
        bytes[corruptAt - at] = bytes[corruptAt - at]! ^ 0xff;
      }
      if (cap > 0) {
        const due = began + ((at - start) / cap) * 1000;
        if (due > Date.now()) await sleep(due - Date.now(), undefined, { signal: ctx.closing });
        if (gone(res)) throw new Error('service: the client went away');
      }
      const drained = res.write(bytes);
      at += bytes.length;
      entry.sent += bytes.length;
      ctx.stats.files.bytesSent += bytes.length;
      if (!drained) await drainOrClose(res);
    }
  }
}

/** Whether the response's connection is gone (the client left, or the response was destroyed). */
function gone(res: ServerResponse): boolean {
  return res.destroyed || res.socket === null || res.socket.destroyed;
}

/** Resolves when the response can take more bytes or has closed. */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (gone(res)) return resolve();
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** Sends an HTML page (nginx's, or Django's 403) for a status, and logs it. */
function page(
  ctx: ServiceContext,
  res: ServerResponse,
  status: number,
  html: { type: string; text: string },
  logged?: Omit<FileResponse, 'status' | 'start' | 'sent' | 'fault'>,
  extra: Record<string, string> = {},
): void {
  send(ctx, res, status, html.type, html.text, extra);
  if (logged !== undefined) ctx.stats.files.log.push({ ...logged, status, start: 0, sent: 0, fault: 'none' });
}

// Each collection's media paths, built on first use and rebuilt after the records change.
const indexes = new WeakMap<ServiceContext, { version: number; byCollection: Map<number, Map<string, MediaTarget>> }>();

/**
 * The collection a media path names, as `get_collection(cid, mode="file")` finds it: by token, or by number, when it
 * refuses a private collection (403, for everyone); undefined for none.
 */
function mediaCollection(ctx: ServiceContext, path: string): { cid: number; refused: boolean } | undefined {
  const named = MEDIA.exec(path)?.[1];
  if (named === undefined) return undefined;
  const { collections } = ctx.dataset;
  const entry = /^\d+$/.test(named) ? collections.get(Number(named)) : collections.byToken(named);
  if (entry === undefined) return undefined;
  return { cid: entry.cid, refused: entry.private && /^\d+$/.test(named) };
}

/** The record link behind a media path of collection `cid`, if any of its records has one. */
function findTarget(ctx: ServiceContext, cid: number, path: string): MediaTarget | undefined {
  const version = ctx.dataset.mutations().length;
  let index = indexes.get(ctx);
  if (index === undefined || index.version !== version)
    indexes.set(ctx, (index = { version, byCollection: new Map() }));
  let paths = index.byCollection.get(cid);
  if (paths === undefined) index.byCollection.set(cid, (paths = collectionPaths(ctx, cid)));
  return paths.get(path);
}

function collectionPaths(ctx: ServiceContext, cid: number): Map<string, MediaTarget> {
  const paths = new Map<string, MediaTarget>();
  const entry = ctx.dataset.collections.get(cid);
  if (entry === undefined) return paths;
  for (const id of collectionImageIds(ctx.dataset, entry)) {
    const record = JSON.parse(ctx.dataset.recordJson(id)) as Record<string, unknown>;
    const size = typeof record['file_size'] === 'number' ? record['file_size'] : 0;
    const add = (link: unknown, kind: string, image?: Pick<MediaTarget, 'fileSize' | 'carries'>): void => {
      const at = typeof link === 'string' ? pathOf(link) : undefined;
      if (at !== undefined) paths.set(at, { id, kind, ...image });
    };
    const effect = ctx.plantedEffect;
    add(record['file'], 'file', { fileSize: size, carries: effect !== undefined && carriesEffect(record, effect) });
    for (const key of EXTRA_LINKS) add(record[key], key);
  }
  return paths;
}

function pathOf(link: string): string | undefined {
  try {
    return decodeURIComponent(new URL(link).pathname);
  } catch {
    return undefined;
  }
}
