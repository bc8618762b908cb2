/**
 * A file `img-etl files` calls ok in its table is on disk at its path, whole, with its sha256, whatever the server
 * answers (ranges, lengths) and whatever an earlier run left. A loopback server lists made-up records and answers their
 * files as each case scripts; the library snapshots it, the real CLI fetches the files. (What may stand at a file's
 * path, another file's `.part` or validator or verified file, is files-paths.e2e.test.ts's.)
 * - A 206 whose Content-Range does not reach the end of the file, or whose Content-Length is not the range's length,
 *   must never leave a shorter file reported ok (a file the listing gives no `file_size` has no other length check).
 * - A record with no file link whose `file_size` is 0 is lost on the server: no reason for exit code 3.
 * - A file whose listed size changed is fetched again; a run writing `--to csv` leaves no files.parquet saying ok for a
 *   file it found failed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bytesOf, expectOkRowsOnDisk, niftiBytes, readFilesTable, snapshotOf } from '../helpers/files-run.js';
import { type AnsweredFile as Made, niiBytes, startAnsweringServer, whole } from '../helpers/media-routes.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';

const COLLECTION = 77;
const FAST = ['--retry-delay', '0.01', '--quiet'];
let root: string;
let server: ScriptedServer | undefined;

beforeEach(async () => {
  root = await tempDir();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await removeDir(root);
});

/**
 * Serves `made` and snapshots it into `<root>/snap` with the library in this process (snapshotOf: what
 * `img-etl --to parquet` runs; these tests start from a snapshot, they do not test how it is taken); the folder.
 */
async function snapshotOfMade(made: readonly Made[]): Promise<string> {
  server = await startAnsweringServer(made, COLLECTION);
  return snapshotOf({ url: server.origin }, join(root, 'snap'));
}

/**
 * A `.nii` the listing gives no size: the first run's answer is cut halfway (ETag kept with the `.part`); the next
 * run's first continuation is answered by `short`, later ones properly.
 */
async function continuedBy(
  short: (res: ServerResponse, body: Buffer, from: number) => void,
  fileSize: number | null = null,
) {
  const body = niiBytes(3, 200_000);
  let cut = true;
  let shorts = 1;
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    if (cut) {
      cut = false;
      res.writeHead(200, { etag: '"v1"', 'content-length': body.length });
      return void res.write(body.subarray(0, body.length / 2), () => res.destroy());
    }
    if (from > 0 && shorts > 0) {
      shorts--;
      return short(res, body, from);
    }
    const headers: Record<string, string | number> = { etag: '"v1"', 'content-length': body.length - from };
    if (from > 0) headers['content-range'] = `bytes ${from}-${body.length - 1}/${body.length}`;
    res.writeHead(from > 0 ? 206 : 200, headers).end(body.subarray(from));
  };
  const snap = await snapshotOfMade([{ name: 'map.nii', fileSize, answer }]);
  const out = join(root, 'out');
  const args = ['files', snap, '--out', out, ...FAST];
  expect((await runCliHere([...args, '--max-attempts', '1'])).code).toBe(3);
  const again = await runCliHere([...args, '--max-attempts', '3']);
  const rows = await expectOkRowsOnDisk(out);
  return { again, rows, body, path: join(out, String(COLLECTION), 'map.nii') };
}

it('a 206 whose Content-Range ends before the file does: never a shorter file called ok', async () => {
  const { again, rows, body, path } = await continuedBy((res, full, from) => {
    const end = from + 999; // a range of 1,000 bytes, of a file of full.length
    res.writeHead(206, {
      etag: '"v1"',
      'content-length': 1000,
      'content-range': `bytes ${from}-${end}/${full.length}`,
    });
    res.end(full.subarray(from, end + 1));
  });
  expect([rows[0]!['status'], rows[0]!['bytes']]).toEqual(['ok', body.length]);
  expect((await bytesOf(path)).equals(body)).toBe(true);
  expect(again.code).toBe(0);
});

it("a 206 whose Content-Length is not its Content-Range's length: never a shorter file called ok", async () => {
  const { rows, body } = await continuedBy((res, full, from) => {
    res.writeHead(206, {
      etag: '"v1"',
      'content-length': 1000,
      'content-range': `bytes ${from}-${full.length - 1}/${full.length}`,
    });
    res.end(full.subarray(from, from + 1000));
  });
  expect(rows[0]!['status'] !== 'ok' || rows[0]!['bytes'] === body.length).toBe(true);
});

it('a 206 to a request without Range, of the first bytes only: never a shorter file called ok', async () => {
  const body = niiBytes(4, 100_000);
  const snap = await snapshotOfMade([
    {
      name: 'map.nii',
      fileSize: null,
      answer: (_req, res) =>
        void res
          .writeHead(206, { 'content-length': 1000, 'content-range': `bytes 0-999/${body.length}` })
          .end(body.subarray(0, 1000)),
    },
  ]);
  const out = join(root, 'out');
  await runCliHere(['files', snap, '--out', out, '--max-attempts', '2', ...FAST]);
  const rows = await expectOkRowsOnDisk(out);
  expect(rows[0]!['status'] !== 'ok' || rows[0]!['bytes'] === body.length).toBe(true);
});

it('a record with no usable file link and file_size 0 is lost on the server: missing_on_server, exit 0', async () => {
  const gz = niftiBytes(5, 4000);
  const snap = await snapshotOfMade([
    { name: null, fileSize: 0 },
    { name: '%2e%2e', fileSize: 0 }, // a link that names no usable file: lost all the same
    { name: 'map.nii.gz', fileSize: gz.length, answer: whole(gz) },
  ]);
  const out = join(root, 'out');
  const run = await runCliHere(['files', snap, '--out', out, '--max-attempts', '1', ...FAST]);
  const rows = await readFilesTable(out);
  expect(rows.map((r) => r['status'])).toEqual(['missing_on_server', 'missing_on_server', 'ok']);
  expect(run.code).toBe(0);
});

it('a file whose listed size changed, its new version failing once, is fetched by the next run', async () => {
  const v1 = niftiBytes(6, 4000);
  const v2 = niftiBytes(6, 5000);
  const made: Made = { name: 'map.nii.gz', fileSize: v1.length, answer: whole(v1) };
  const snap = await snapshotOfMade([made]);
  const out = join(root, 'out');
  const files = (from: string) => runCliHere(['files', from, '--out', out, '--max-attempts', '1', ...FAST]);
  expect((await files(snap)).code).toBe(0);
  // The listing now gives the new version's size; the server fails the first request for it.
  made.fileSize = v2.length;
  made.answer = (_req, res) => void res.writeHead(503, { 'content-length': 0 }).end();
  const snap2 = join(root, 'snap2');
  await snapshotOf({ url: server!.origin }, snap2); // throws unless complete
  expect((await files(snap2)).code).toBe(3);
  made.answer = whole(v2, '"v2"');
  const last = await files(snap2);
  const rows = await expectOkRowsOnDisk(out);
  expect([rows[0]!['status'], rows[0]!['reason']]).toEqual(['ok', null]);
  expect((await bytesOf(join(out, String(COLLECTION), 'map.nii.gz'))).equals(v2)).toBe(true);
  expect(last.code).toBe(0);
});

it("a run with --to csv leaves no earlier run's files.parquet saying ok for a file it found failed", async () => {
  const gz = niftiBytes(9, 4000);
  const made: Made = { name: 'map.nii.gz', fileSize: gz.length, answer: whole(gz) };
  const snap = await snapshotOfMade([made]);
  const out = join(root, 'out');
  const files = (...more: string[]) =>
    runCliHere(['files', snap, '--out', out, '--max-attempts', '1', ...FAST, ...more]);
  expect((await files()).code).toBe(0);
  await rm(join(out, String(COLLECTION), 'map.nii.gz'));
  made.answer = (_req, res) => void res.writeHead(503, { 'content-length': 0 }).end();
  expect((await files('--to', 'csv')).code).toBe(3);
  // Whatever files.parquet is there says what the folder holds: no ok row for a file that is not on disk.
  if (
    await stat(join(out, 'files.parquet')).then(
      () => true,
      () => false,
    )
  )
    await expectOkRowsOnDisk(out);
});
