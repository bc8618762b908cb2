/**
 * Shared pieces of the `img-etl files` tests: a snapshot of a service taken by the real CLI, the bytes the service
 * serves for a link (fetched over HTTP, independently of img-etl), files.parquet read back by DuckDB, files on disk.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startService, type RunningService, type ServiceOptions } from '../../src/service/index.js';
import { niftiGzipFile } from '../../src/service/media/nifti-gzip-file.js';
import { openDuckDB, query, sqlString, tempDir } from './readers.js';
import { expect } from 'vitest';
import { runSnapshot } from '../../src/run/run-snapshot.js';
import { sendJson, startScriptedServer, type ScriptedServer } from './scripted-server.js';

/** A record as the service serves it. */
export type Rec = Record<string, unknown>;

/** What most files tests start from: a bundled service, a temporary folder, the CLI's snapshot of the service in it. */
export interface SnapshottedService {
  service: RunningService;
  /** The temporary folder (remove it after the tests). */
  root: string;
  /** The snapshot folder, `root/snap`. */
  snap: string;
  /** The records the service serves. */
  records: Rec[];
}

/** Starts a bundled service with `options` and snapshots it with the real CLI into a new temporary folder. */
export async function startSnapshottedService(options: ServiceOptions): Promise<SnapshottedService> {
  const service = await startService(options);
  const root = await tempDir();
  const snap = await snapshotOf(service, join(root, 'snap'));
  return { service, root, snap, records: [...service.servedRecords()] };
}

/** Whether a record's listed `file_size` is at least `min` and at most `max` bytes (never a null size). */
export function fileSizeWithin(min: number, max: number): (record: Rec) => boolean {
  return (record) => {
    const size = record['file_size'] as number | null;
    return size !== null && size >= min && size <= max;
  };
}

/**
 * Snapshots the service into `out` with the library's runSnapshot in this process (what `img-etl --base-url … --out
 * out` runs: the files tests start from a snapshot, they do not test how it is taken), saving a CLI's start-up (0.45
 * CPU-s) a snapshot; throws unless it is complete.
 */
export async function snapshotOf(service: Pick<RunningService, 'url'>, out: string): Promise<string> {
  const result = await runSnapshot({ baseUrl: service.url, outDir: out });
  if (!result.manifest.complete) throw new Error(`snapshot into ${out} is incomplete`);
  return out;
}

/** The bytes the service serves at a URL, with a plain fetch. */
export async function servedBytes(url: string): Promise<Buffer> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`test: GET ${url} returned ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** SHA-256 of bytes, hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** files.parquet of an output folder, read by DuckDB, ordered by id and link; int64 columns as numbers. */
export async function readFilesTable(out: string): Promise<Record<string, unknown>[]> {
  const db = await openDuckDB();
  const rows = await query(
    db,
    `SELECT id::DOUBLE AS id, collection_id::DOUBLE AS collection_id, link, url, path, bytes::DOUBLE AS bytes,
       sha256, status, reason
     FROM read_parquet(${sqlString(join(out, 'files.parquet'))}) ORDER BY id, link`,
  );
  return rows;
}

/** Every file under a folder (relative paths, sorted) with its size; one gone between listing and stat is left out. */
export async function filesUnder(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const walk = async (at: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path, `${prefix}${entry.name}/`);
      else {
        // A run still going renames a `.part` to its final name when the file completes: one listed may be gone.
        const size = await stat(path).then(
          (s) => s.size,
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT') return undefined;
            throw error;
          },
        );
        if (size !== undefined) found.set(`${prefix}${entry.name}`, size);
      }
    }
  };
  await walk(dir, '');
  return new Map([...found].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

/** Bytes under an output folder in image files, whole or `.part` (files.parquet left out). */
export async function landedBytes(out: string): Promise<number> {
  return [...(await filesUnder(out))].filter(([name]) => name !== 'files.parquet').reduce((n, [, size]) => n + size, 0);
}

/** The relative path a file link lands at under the output folder: `<collection_id>/<name>`. */
export function landingPath(record: Record<string, unknown>, link = 'file'): string {
  const pathname = new URL(record[link] as string).pathname;
  return `${String(record['collection_id'])}/${decodeURIComponent(pathname.slice(pathname.lastIndexOf('/') + 1))}`;
}

/** Reads a file. */
export function bytesOf(path: string): Promise<Buffer> {
  return readFile(path);
}

/** `--where "id in (…)"` selecting exactly these records. */
export function whereIds(records: readonly Record<string, unknown>[]): string[] {
  return ['--where', `id in (${records.map((r) => String(r['id'])).join(', ')})`];
}

/** The bundled service's `.nii.gz` of image `id`, exactly `size` bytes (at least its smallest size), as one buffer. */
export function niftiBytes(id: number, size: number): Buffer {
  const file = niftiGzipFile(id, size);
  return Buffer.concat([...file.read(0, file.size)]);
}

/**
 * A loopback service for the records a test makes up: the image list (`records(origin)`, paged by limit and offset; no
 * collection endpoints, so a snapshot pages the list only) and the bytes of `files`, by request path and query; 404
 * for anything else. The server records each request with its headers.
 */
export async function startMediaServer(
  records: (origin: string) => Rec[],
  files: ReadonlyMap<string, Buffer>,
): Promise<ScriptedServer> {
  return startScriptedServer((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    const bytes = files.get(req.url ?? '');
    if (bytes !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
      return void res.end(bytes);
    }
    if (url.pathname !== '/api/images/') return sendJson(res, { detail: 'Not found.' }, 404);
    const all = records(origin);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const next = offset + limit < all.length ? `${origin}/api/images/?limit=${limit}&offset=${offset + limit}` : null;
    sendJson(res, { count: all.length, next, previous: null, results: all.slice(offset, offset + limit) });
  });
}

/** Every row files.parquet calls ok is on disk at its path with its sha256 and bytes; the rows. */
export async function expectOkRowsOnDisk(out: string): Promise<Record<string, unknown>[]> {
  const rows = await readFilesTable(out);
  for (const row of rows.filter((r) => r['status'] === 'ok')) {
    const bytes = await bytesOf(join(out, row['path'] as string)).catch(() => undefined);
    expect(bytes === undefined ? 'absent' : sha256(bytes), `${String(row['path'])} (ok in files.parquet)`).toBe(
      row['sha256'],
    );
    expect(bytes!.length).toBe(row['bytes']);
  }
  return rows;
}
