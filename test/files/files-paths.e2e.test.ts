/**
 * Where `img-etl files` puts a file, and what may stand at its path. A loopback service lists records made up for
 * each case and serves their bytes; the real CLI snapshots it, then fetches the files; files.parquet is read back by
 * DuckDB and the files on disk compared byte for byte with what was served.
 * - Two images whose URLs differ only in a sub-folder below `/media/images/<collection_id>/` land in that sub-folder,
 *   each with its own bytes (NIDM results name files so).
 * - A path files.parquet holds as verified for another image is never replaced, nor reported `ok` for this one, even
 *   when a run with another `--where` left that image unlisted.
 * - A file where another link needs a folder (another file's `.part` among them), or a link named as another file's
 *   `.part.validator`: that link fails, the rest are fetched, and no row is ok whose file is not on disk.
 * - A file name longer than the file system takes is shortened.
 * - `path` in files.parquet is relative to `--out`, whichever folder the command ran in (the bundled service).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import {
  bytesOf,
  expectOkRowsOnDisk,
  fileSizeWithin,
  landingPath,
  niftiBytes,
  readFilesTable,
  type Rec,
  servedBytes,
  sha256,
  snapshotOf,
  startMediaServer,
  startSnapshottedService,
  whereIds,
} from '../helpers/files-run.js';
import { madeRecords } from '../helpers/list-server.js';
import { type AnsweredFile, startAnsweringServer, whole } from '../helpers/media-routes.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli, runCliHere } from '../helpers/run-cli.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';

let root: string;
let server: ScriptedServer | undefined;
let counter = 0;
const fresh = (): string => join(root, `out-${++counter}`);

beforeAll(async () => {
  root = await tempDir();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

afterAll(async () => {
  await removeDir(root);
});

/** One made-up image: its id, collection, the path and query of its file on the server, and the bytes served there. */
interface Made {
  id: number;
  collection: number;
  file: string;
  bytes: Buffer;
}

/** Serves `made` (records and files) on a loopback server and snapshots it with the real CLI. */
async function snapshotOfMade(made: readonly Made[]): Promise<string> {
  const files = new Map(made.map((m) => [m.file, m.bytes]));
  const records = (origin: string): Rec[] =>
    madeRecords(made.length).map((record, i) => {
      const m = made[i]!;
      return {
        ...record,
        id: m.id,
        url: `${origin}/images/${m.id}/`,
        collection: `${origin}/collections/${m.collection}/`,
        collection_id: m.collection,
        file: `${origin}${m.file}`,
        file_size: m.bytes.length,
      };
    });
  server = await startMediaServer(records, files);
  const snap = join(fresh(), 'snap');
  await snapshotOf({ url: server.origin }, snap);
  return snap;
}

async function files(snap: string, out: string, ...args: string[]) {
  return runCliHere(['files', snap, '--out', out, '--max-attempts', '2', '--retry-delay', '0.01', '--quiet', ...args]);
}

// The cases of another file's .part, its validator or its verified file serve each file as the case answers it (200
// with an ETag, so a download keeps a `.part.validator`).
const COLLECTION = 77;
const FAST = ['--retry-delay', '0.01', '--quiet'];

/** Serves `made` and snapshots it with the library in this process (these cases start from a snapshot). */
async function snapshotOfAnswered(made: readonly AnsweredFile[]): Promise<string> {
  server = await startAnsweringServer(made, COLLECTION);
  return snapshotOf({ url: server.origin }, join(fresh(), 'snap'));
}

describe('sub-folders below /media/images/<collection_id>/', () => {
  it('land each image in its own sub-folder, with its own bytes and sha256', async () => {
    const made: Made[] = [
      { id: 22, collection: 5, file: '/media/images/5/nidm_a/TStatistic.nii.gz', bytes: niftiBytes(22, 4000) },
      { id: 23, collection: 5, file: '/media/images/5/nidm_b/TStatistic.nii.gz', bytes: niftiBytes(23, 4000) },
      { id: 24, collection: 5, file: '/media/images/5/plain.nii.gz', bytes: niftiBytes(24, 3000) },
    ];
    const snap = await snapshotOfMade(made);
    const out = fresh();
    const run = await files(snap, out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const rows = await readFilesTable(out);
    const landed = ['5/nidm_a/TStatistic.nii.gz', '5/nidm_b/TStatistic.nii.gz', '5/plain.nii.gz'];
    expect(rows.map((r) => [r['id'], r['status'], r['path']])).toEqual(
      made.map((m, i) => [m.id, 'ok', landed[i]!]), // relative to --out
    );
    for (const [i, m] of made.entries()) {
      expect((await bytesOf(join(out, landed[i]!))).equals(m.bytes), landed[i]).toBe(true);
      expect(rows[i]!['sha256']).toBe(sha256(m.bytes));
    }
  });

  it('never replaces, nor calls ok, a path files.parquet holds as verified for another image', async () => {
    // Image 22's file is verified at 5/TStatistic.nii.gz; images 23 (same size) and 24 (another size) name that path
    // too, their bytes told apart by the query only.
    const path = '/media/images/5/TStatistic.nii.gz';
    const made: Made[] = [
      { id: 22, collection: 5, file: path, bytes: niftiBytes(22, 4000) },
      { id: 23, collection: 5, file: `${path}?v=23`, bytes: niftiBytes(23, 4000) },
      { id: 24, collection: 5, file: `${path}?v=24`, bytes: niftiBytes(24, 5000) },
    ];
    const snap = await snapshotOfMade(made);
    for (const other of made.slice(1)) {
      const out = fresh();
      const target = join(out, '5', 'TStatistic.nii.gz');
      expect((await files(snap, out, '--where', 'id = 22')).code).toBe(0);
      expect((await bytesOf(target)).equals(made[0]!.bytes)).toBe(true);
      const asked = server!.requests.length;
      const run = await files(snap, out, '--where', `id = ${other.id}`);
      expect(run.code).toBe(3);
      const [row] = await readFilesTable(out);
      expect([row!['id'], row!['status'], row!['sha256']]).toEqual([other.id, 'failed', null]);
      expect(row!['reason']).toBe(`files: ${target} holds the verified file of image 22; move it to fetch this one`);
      expect((await bytesOf(target)).equals(made[0]!.bytes)).toBe(true);
      expect(server!.requests.slice(asked)).toEqual([]); // nothing fetched
    }
  });

  it('a file where another link needs a folder, or the reverse: that link failed, the rest fetched', async () => {
    const made: Made[] = [
      { id: 24, collection: 5, file: '/media/images/5/plain.nii.gz', bytes: niftiBytes(24, 3000) },
      { id: 25, collection: 5, file: '/media/images/5/plain.nii.gz/inner.nii.gz', bytes: niftiBytes(25, 3000) },
    ];
    const snap = await snapshotOfMade(made);
    const file = (out: string): string => join(out, '5', 'plain.nii.gz');
    const folder = (out: string): string => join(out, '5', 'plain.nii.gz', 'inner.nii.gz');
    // The file first (one at a time, in the listing's order): the folder cannot be made.
    const first = fresh();
    const both = await files(snap, first, '--concurrency', '1');
    expect(both.code).toBe(3);
    expect((await readFilesTable(first)).map((r) => [r['id'], r['status'], r['reason']])).toEqual([
      [24, 'ok', null],
      [25, 'failed', `files: ${folder(first)}: ${file(first)} is a file, not a folder`],
    ]);
    expect((await bytesOf(file(first))).equals(made[0]!.bytes)).toBe(true);
    // The folder first, in an earlier run: the file cannot land.
    const second = fresh();
    expect((await files(snap, second, '--where', 'id = 25')).code).toBe(0);
    const then = await files(snap, second);
    expect(then.code).toBe(3);
    expect((await readFilesTable(second)).map((r) => [r['id'], r['status'], r['reason']])).toEqual([
      [24, 'failed', `files: ${file(second)} is a folder; move it to fetch this file`],
      [25, 'ok', null],
    ]);
    expect((await bytesOf(folder(second))).equals(made[1]!.bytes)).toBe(true);
  });

  it('a file where a link of the same run needs a folder, both in flight: that link failed', async () => {
    const made: Made[] = [
      { id: 26, collection: 1, file: '/media/images/1/x', bytes: niftiBytes(26, 200_000) },
      { id: 27, collection: 1, file: '/media/images/1/x/T.nii.gz', bytes: niftiBytes(27, 200_000) },
    ];
    const snap = await snapshotOfMade(made);
    const out = fresh();
    const run = await files(snap, out); // the default concurrency: both are fetched at once
    expect(run.stderr).not.toMatch(/EISDIR|ENOTDIR|EEXIST/);
    expect(run.code).toBe(3);
    const [file, inner] = [join(out, '1', 'x'), join(out, '1', 'x', 'T.nii.gz')];
    const reason = `files: ${inner}: ${file} is the path of another selected file`;
    expect((await readFilesTable(out)).map((r) => [r['id'], r['status'], r['reason']])).toEqual([
      [26, 'ok', null],
      [27, 'failed', reason],
    ]);
    expect((await bytesOf(join(out, '1', 'x'))).equals(made[0]!.bytes)).toBe(true);
    expect((await readdir(join(out, '1'))).sort()).toEqual(['x']); // no .part left
  });
});

describe('a file name longer than the file system takes', () => {
  it('is shortened to <prefix>-<image id><extension> within 255 bytes with .part.validator, and fetched', async () => {
    const long = `${'é'.repeat(100)}${'a'.repeat(100)}.nii.gz`; // 307 bytes of UTF-8
    expect(Buffer.byteLength(long)).toBe(307);
    const made: Made[] = [
      { id: 31, collection: 7, file: `/media/images/7/${encodeURIComponent(long)}`, bytes: niftiBytes(31, 3000) },
      { id: 32, collection: 7, file: '/media/images/7/short.nii.gz', bytes: niftiBytes(32, 3000) },
    ];
    const snap = await snapshotOfMade(made);
    const out = fresh();
    const run = await files(snap, out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const names = await readdir(join(out, '7'));
    const short = names.find((name) => name !== 'short.nii.gz')!;
    expect(names.sort()).toEqual([short, 'short.nii.gz'].sort()); // no .part left
    expect(short).toMatch(/^(é+)(a*)-31\.nii\.gz$/);
    expect(long.startsWith(short.slice(0, -'-31.nii.gz'.length))).toBe(true);
    expect(Buffer.byteLength(`${short}.part.validator`)).toBeLessThanOrEqual(255);
    expect(Buffer.byteLength(`${short}.part.validator`)).toBeGreaterThan(250); // as much of the name as fits
    const rows = await readFilesTable(out);
    expect(rows.map((r) => [r['id'], r['status'], r['path']])).toEqual([
      [31, 'ok', join('7', short)],
      [32, 'ok', join('7', 'short.nii.gz')],
    ]);
    expect((await bytesOf(join(out, '7', short))).equals(made[0]!.bytes)).toBe(true);
    expect(rows[0]!['sha256']).toBe(sha256(made[0]!.bytes));
    const again = await files(snap, out); // a rerun keeps it under the same name
    expect(again.code).toBe(0);
    expect(server!.requests.filter((r) => r.startsWith('/media/'))).toHaveLength(2);
  });
});

describe("a link at the path of another file's .part or .part.validator", () => {
  it("a link named as another file's .part.validator: no ok row whose file another download removed", async () => {
    const validatorBytes = Buffer.from('bytes of a file whose name is another file’s validator\n');
    const gz = niftiBytes(1, 4000);
    const snap = await snapshotOfAnswered([
      { name: 'map.nii.gz.part.validator', fileSize: validatorBytes.length, answer: whole(validatorBytes) },
      { name: 'map.nii.gz', fileSize: gz.length, answer: whole(gz) },
    ]);
    const out = fresh();
    const run = await runCliHere(['files', snap, '--out', out, '--concurrency', '1', '--max-attempts', '1', ...FAST]);
    const rows = await expectOkRowsOnDisk(out);
    // The gz is fetched and ok; the other may be refused (failed), never ok without its file.
    expect(rows.map((r) => [r['path'], r['status']])).toContainEqual([`${COLLECTION}/map.nii.gz`, 'ok']);
    expect(run.code === 0).toBe(rows.every((r) => r['status'] === 'ok'));
  });

  it("a sub-folder named as another file's .part: that link is failed, the run goes on", async () => {
    const inFolder = niftiBytes(7, 4000);
    const beside = niftiBytes(8, 3000);
    const snap = await snapshotOfAnswered([
      { name: 'a.part/b.nii.gz', fileSize: inFolder.length, answer: whole(inFolder) },
      { name: 'a', fileSize: beside.length, answer: whole(beside) },
    ]);
    const out = fresh();
    const run = await runCliHere(['files', snap, '--out', out, '--concurrency', '1', '--max-attempts', '1', ...FAST]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(3);
    const rows = await expectOkRowsOnDisk(out);
    expect(rows.map((r) => r['status']).sort()).toEqual(['failed', 'ok']);
  });
});

// files.parquet lists only the last run's selection, so a run with another --where dropped the records that say which
// image a file on disk is of; a later run then took a file of the same path and size as the file of whichever image
// it selected (until the folder kept a record of the verified files its table no longer lists: verified-ledger.ts).
// The runs are made and checked in beforeAll.
describe("a file another --where's run left unlisted", () => {
  const b = niftiBytes(11, 4000);
  const ids = [1_000_000, 1_000_001, 1_000_002];
  let row: Record<string, unknown> | undefined;
  beforeAll(async () => {
    const a = niftiBytes(10, 4000);
    const c = niftiBytes(12, 3000);
    const made: AnsweredFile[] = [
      { name: 'T.nii.gz', fileSize: a.length, answer: whole(a) },
      { name: 'T.nii.gz?v=2', fileSize: b.length, answer: whole(b) },
      { name: 'other.nii.gz', fileSize: c.length, answer: whole(c) },
    ];
    const snap = await snapshotOfAnswered(made);
    const out = fresh();
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

  it("is not taken as another image's file of that path", () => {
    expect(row!['status'] !== 'ok' || row!['sha256'] === sha256(b)).toBe(true);
    expect(row).toMatchObject({ status: 'failed' });
    expect(String(row!['reason'])).toContain(`holds the verified file of image ${ids[0]}`);
  });
});

describe('the path files.parquet gives, on the bundled service', () => {
  let service: RunningService;
  let dir: string;
  let snap: string;
  let records: Rec[];
  const byId = (a: Rec, b: Rec): number => (a['id'] as number) - (b['id'] as number);

  beforeAll(async () => {
    ({ service, root: dir, snap, records } = await startSnapshottedService({ records: 400, seed: 5 }));
  });

  afterAll(async () => {
    await service.close();
    await removeDir(dir);
  });

  it('path is relative to --out, whichever folder the command ran in; a rerun elsewhere keeps the files', async () => {
    const chosen = records.filter(fileSizeWithin(1, 200_000)).slice(2, 5).sort(byId);
    const first = await runCli(['files', snap, '--out', join('nested', 'maps'), ...whereIds(chosen), '--quiet'], {
      cwd: dir,
    });
    expect(first.code).toBe(0);
    const out = join(dir, 'nested', 'maps');
    const table = await readFilesTable(out);
    expect(table.map((row) => [row['id'], row['path']])).toEqual(chosen.map((r) => [r['id'], landingPath(r)]));
    for (const [i, row] of table.entries())
      expect(
        (await bytesOf(join(out, row['path'] as string))).equals(await servedBytes(chosen[i]!['file'] as string)),
      ).toBe(true);

    service.resetStats();
    const again = await runCliHere(['files', snap, '--out', out, ...whereIds(chosen), '--summary', 'json']);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { kept: number }).kept).toBe(chosen.length);
    expect(service.stats.files.requests).toBe(0);
    expect((await readFilesTable(out)).map((row) => row['path'])).toEqual(chosen.map((r) => landingPath(r)));
  });
});
