/**
 * Image files a test scripts, served beside a made-up listing (list-server.ts) over one loopback server and
 * snapshotted by the real CLI: for what the bundled service never serves (a file that changes between two runs, a
 * `.nii`, a gzip file with a second member), with the validators (`ETag`, `Last-Modified`) and Range answers chosen;
 * or each file answered by a function of the test's own (startAnsweringServer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { niftiImage } from '../../src/service/media/nifti-gzip-file.js';
import { madeRecords, startListServer } from './list-server.js';
import { snapshotOf } from './files-run.js';
import type { ScriptedServer } from './scripted-server.js';

/** One version of a served file: its bytes and the validators sent with them (none unless given). */
export interface FileVersion {
  body: Buffer;
  etag?: string;
  lastModified?: string;
}

/** What a media path serves; change it between runs to change the file. */
export interface MediaRoute {
  /** The path, `/media/images/<collection_id>/<name>`. */
  readonly path: string;
  /** The record linking to it. */
  readonly record: Record<string, unknown>;
  /** What the path serves now. */
  version: FileVersion;
  /** Answers still to end after half their body (the connection closed early). */
  cuts: number;
  /** Whether an `If-Range` naming another version gets the whole file (200); false: it is ignored. */
  honourIfRange: boolean;
}

/** A listing and its files on one loopback server, snapshotted. */
export interface MediaService {
  server: ScriptedServer;
  /** The snapshot folder the CLI wrote. */
  snap: string;
  /** The routes, one per image, in the order of the names given. */
  routes: MediaRoute[];
}

/**
 * Starts a server listing one image per file (`names` and their first versions, `file_size` their length) and
 * serving those files, and snapshots it with the real CLI into `<root>/snap`.
 */
export async function startMediaService(
  root: string,
  files: readonly { name: string; version: FileVersion }[],
): Promise<MediaService> {
  let origin = '';
  const routes: MediaRoute[] = madeRecords(files.length).map((made, i) => {
    const path = `/media/images/${String(made['collection_id'])}/${files[i]!.name}`;
    return { path, record: made, version: files[i]!.version, cuts: 0, honourIfRange: true };
  });
  const records = (): Record<string, unknown>[] =>
    routes.map((route) =>
      Object.assign(route.record, {
        file: `${origin}${route.path}`,
        file_size: route.version.body.length,
        thumbnail: null,
        surface_left_file: null,
        surface_right_file: null,
        reduced_representation: null,
      }),
    );
  const server = await startListServer([], {
    records: () => records(),
    other: (req, res) => {
      const route = routes.find((r) => r.path === req.url);
      if (route === undefined) return void res.writeHead(404, { 'content-length': 0 }).end();
      serveFile(route, req, res);
    },
  });
  origin = server.origin;
  const snap = join(root, 'snap');
  await snapshotOf({ url: origin }, snap);
  return { server, snap, routes };
}

/** One made-up image: its file's name below `/media/images/<collection>/` (null: no link), listed size, answer. */
export interface AnsweredFile {
  name: string | null;
  fileSize: number | null;
  /** How its file is answered (read at each request, so a test may change it between runs); none: 404. */
  answer?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** Starts a server listing `made` as images of `collection` (no link but `file`) and answering each file as it says. */
export async function startAnsweringServer(made: readonly AnsweredFile[], collection: number): Promise<ScriptedServer> {
  let origin = '';
  const records = madeRecords(made.length).map((record, i) => ({ record, made: made[i]! }));
  const path = (m: AnsweredFile): string => `/media/images/${collection}/${m.name}`;
  const server = await startListServer([], {
    records: () =>
      records.map(({ record, made: m }) => ({
        ...record,
        collection: `${origin}/collections/${collection}/`,
        collection_id: collection,
        file: m.name === null ? null : `${origin}${path(m)}`,
        file_size: m.fileSize,
        thumbnail: null,
        surface_left_file: null,
        surface_right_file: null,
        reduced_representation: null,
      })),
    other: (req, res) => {
      const m = made.find((x) => x.name !== null && path(x) === req.url);
      if (m?.answer === undefined) return void res.writeHead(404, { 'content-length': 0 }).end();
      m.answer(req, res);
    },
  });
  origin = server.origin;
  return server;
}

/** Answers the whole body, 200, with `etag`. */
export function whole(body: Buffer, etag = '"v1"') {
  return (_req: IncomingMessage, res: ServerResponse): void =>
    void res.writeHead(200, { etag, 'content-length': body.length }).end(body);
}

/** A `.nii` of `size` bytes: the bundled service's NIfTI-1 header and voxels, then bytes that follow from `seed`. */
export function niiBytes(seed: number, size: number): Buffer {
  const head = niftiImage(1);
  const body = Buffer.alloc(size);
  head.copy(body);
  for (let i = head.length; i < size; i++) body[i] = (i * 31 + seed * 97 + (i >> 8)) & 0xff;
  return body;
}

/** Answers GET of a route: the whole file, or from byte N for `Range: bytes=N-` (If-Range as the route says). */
function serveFile(route: MediaRoute, req: IncomingMessage, res: ServerResponse): void {
  const { body, etag, lastModified } = route.version;
  const headers: Record<string, string | number> = { 'content-type': 'application/octet-stream' };
  if (etag !== undefined) headers['etag'] = etag;
  if (lastModified !== undefined) headers['last-modified'] = lastModified;
  const from = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const ifRange = req.headers['if-range'];
  const current = ifRange === undefined || !route.honourIfRange || ifRange === (etag ?? lastModified);
  const start = from !== null && current ? Number(from[1]) : 0;
  if (start > 0) headers['content-range'] = `bytes ${start}-${body.length - 1}/${body.length}`;
  headers['content-length'] = body.length - start;
  res.writeHead(start > 0 ? 206 : 200, headers);
  if (route.cuts === 0) return void res.end(body.subarray(start));
  route.cuts--;
  const half = start + Math.floor((body.length - start) / 2);
  // What was sent reaches the client before the connection drops, so the .part holds it.
  res.write(body.subarray(start, half), () => res.destroy());
}
