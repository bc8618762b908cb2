/**
 * A file `img-etl files` calls ok in its table is on disk at its path, whole, with its sha256, whatever the server
 * answers (ranges, lengths, names) and whatever an earlier run left. A loopback server lists made-up records and
 * answers their files as each case scripts; the library snapshots it, the real CLI fetches the files.
 * - A link whose name is another selected file's name plus `.part.validator` (where a download keeps its validator)
 *   must not have its verified file removed by the other file's download while files.parquet calls it ok.
 * - A 206 whose Content-Range does not reach the end of the file, or whose Content-Length is not the range's length,
 *   must never leave a shorter file reported ok (a file the listing gives no `file_size` has no other length check).
 * - A record with no file link whose `file_size` is 0 is lost on the server: no reason for exit code 3.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bytesOf, niftiBytes, readFilesTable, sha256, snapshotOf } from '../helpers/files-run.js';
import { madeRecords, startListServer } from '../helpers/list-server.js';
import { niiBytes } from '../helpers/media-routes.js';
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

/** One made-up image: the name of its file below `/media/images/77/` (null: no link), its listed size, its answer. */
interface Made {
  name: string | null;
  fileSize: number | null;
  answer?: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Serves `made` and snapshots it into `<root>/snap` with the library in this process (snapshotOf: what
 * `img-etl --to parquet` runs; these tests start from a snapshot, they do not test how it is taken); the folder.
 */
async function snapshotOfMade(made: readonly Made[]): Promise<string> {
  let origin = '';
  const records = madeRecords(made.length).map((record, i) => ({ record, made: made[i]! }));
  const path = (m: Made): string => `/media/images/${COLLECTION}/${m.name}`;
  server = await startListServer([], {
    records: () =>
      records.map(({ record, made: m }) => ({
        ...record,
        collection: `${origin}/collections/${COLLECTION}/`,
        collection_id: COLLECTION,
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
  return snapshotOf({ url: origin }, join(root, 'snap'));
}

/** Answers the whole body, 200, with `etag`. */
function whole(body: Buffer, etag = '"v1"') {
  return (_req: IncomingMessage, res: ServerResponse): void =>
    void res.writeHead(200, { etag, 'content-length': body.length }).end(body);
}

/** Every row files.parquet calls ok is on disk at its path with its sha256 and bytes. */
async function expectOkRowsOnDisk(out: string): Promise<Record<string, unknown>[]> {
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

it("a link named as another file's .part.validator: no ok row whose file another download removed", async () => {
  const validatorBytes = Buffer.from('bytes of a file whose name is another file’s validator\n');
  const gz = niftiBytes(1, 4000);
  const snap = await snapshotOfMade([
    { name: 'map.nii.gz.part.validator', fileSize: validatorBytes.length, answer: whole(validatorBytes) },
    { name: 'map.nii.gz', fileSize: gz.length, answer: whole(gz) },
  ]);
  const out = join(root, 'out');
  const run = await runCliHere(['files', snap, '--out', out, '--concurrency', '1', '--max-attempts', '1', ...FAST]);
  const rows = await expectOkRowsOnDisk(out);
  // The gz is fetched and ok; the other may be refused (failed), never ok without its file.
  expect(rows.map((r) => [r['path'], r['status']])).toContainEqual([`${COLLECTION}/map.nii.gz`, 'ok']);
  expect(run.code === 0).toBe(rows.every((r) => r['status'] === 'ok'));
});

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

it("a sub-folder named as another file's .part: that link is failed, the run goes on", async () => {
  const inFolder = niftiBytes(7, 4000);
  const beside = niftiBytes(8, 3000);
  const snap = await snapshotOfMade([
    { name: 'a.part/b.nii.gz', fileSize: inFolder.length, answer: whole(inFolder) },
    { name: 'a', fileSize: beside.length, answer: whole(beside) },
  ]);
  const out = join(root, 'out');
  const run = await runCliHere(['files', snap, '--out', out, '--concurrency', '1', '--max-attempts', '1', ...FAST]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(3);
  const rows = await expectOkRowsOnDisk(out);
  expect(rows.map((r) => r['status']).sort()).toEqual(['failed', 'ok']);
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

// files.parquet lists only the last run's selection, so a run with another --where dropped the records that say which
// image a file on disk is of; a later run then took a file of the same path and size as the file of whichever image
// it selected (until the folder kept a record of the verified files its table no longer lists: verified-ledger.ts).
// The runs are made and checked in beforeAll.
describe("a file another --where's run left unlisted", () => {
  const b = niftiBytes(11, 4000);
  const ids = [1_000_000, 1_000_001, 1_000_002];
  let dir: string;
  let row: Record<string, unknown> | undefined;
  beforeAll(async () => {
    root = dir = await tempDir();
    const a = niftiBytes(10, 4000);
    const c = niftiBytes(12, 3000);
    const made: Made[] = [
      { name: 'T.nii.gz', fileSize: a.length, answer: whole(a) },
      { name: 'T.nii.gz?v=2', fileSize: b.length, answer: whole(b) },
      { name: 'other.nii.gz', fileSize: c.length, answer: whole(c) },
    ];
    const snap = await snapshotOfMade(made);
    const out = join(dir, 'out');
    const files = (id: number) =>
      runCliHere(['files', snap, '--out', out, '--max-attempts', '1', ...FAST, '--where', `id = ${id}`]);
    expect((await files(ids[0]!)).code).toBe(0);
    expect((await files(ids[2]!)).code).toBe(0); // files.parquet now lists image 3's file alone
    const third = await files(ids[1]!);
    expect(third.stderr).toBe('');
    [row] = await readFilesTable(out);
    expect(row!['id']).toBe(ids[1]);
    await server?.close();
    server = undefined;
  });
  afterAll(() => removeDir(dir));

  it("is not taken as another image's file of that path", () => {
    expect(row!['status'] !== 'ok' || row!['sha256'] === sha256(b)).toBe(true);
    expect(row).toMatchObject({ status: 'failed' });
    expect(String(row!['reason'])).toContain(`holds the verified file of image ${ids[0]}`);
  });
});
