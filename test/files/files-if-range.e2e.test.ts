/**
 * A `.part` continued after the server's file changed (same size) must not splice two versions.
 * The validator of a partial download (ETag, else Last-Modified) is kept beside the `.part` and sent as `If-Range`
 * with the continuation: a 200 (the file changed) restarts it from byte 0. Without a validator the `.part` is not
 * continued blindly: it is fetched again from byte 0. A scripted loopback server serves a `.nii` (only its header is
 * checked, so a splice would pass as ok), cuts the first answer halfway, then serves a new version of the same size.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bytesOf, readFilesTable, sha256 } from '../helpers/files-run.js';
import { niiBytes, startMediaService, type FileVersion, type MediaService } from '../helpers/media-routes.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

const SIZE = 300_000;
const FAST = ['--retry-delay', '0.01', '--quiet'];
let root: string;
let media: MediaService | undefined;

beforeEach(async () => {
  root = await tempDir();
});

afterEach(async () => {
  await media?.server.close();
  media = undefined;
  await removeDir(root);
});

/**
 * Serves version `first`, cuts the first run's answer halfway (the run ends failed, the `.part` kept), then serves
 * `second` (same size) and runs again; returns what the second run sent and the file it ended with.
 */
async function changedBetweenRuns(first: FileVersion, second: FileVersion, honourIfRange = true) {
  media = await startMediaService(root, [{ name: 'map.nii', version: first }]);
  const route = media.routes[0]!;
  const out = join(root, 'files');
  const path = join(out, String(route.record['collection_id']), 'map.nii');
  const args = ['files', media.snap, '--out', out, ...FAST];
  route.cuts = 1;
  const cut = await runCliHere([...args, '--max-attempts', '1']);
  expect(cut.code).toBe(3);
  expect((await bytesOf(`${path}.part`)).equals(first.body.subarray(0, SIZE / 2))).toBe(true);
  const kept = first.etag ?? first.lastModified;
  expect((await readdir(dirname(path))).sort()).toEqual(
    kept === undefined ? ['map.nii.part'] : ['map.nii.part', 'map.nii.part.validator'],
  );
  if (kept !== undefined) expect(await readFile(`${path}.part.validator`, 'latin1')).toBe(kept);

  route.version = second;
  route.honourIfRange = honourIfRange;
  const seen = media.server.seen.length;
  const again = await runCliHere([...args, '--max-attempts', '3']);
  const requests = media.server.seen.slice(seen).filter((r) => r.url === route.path);
  return { again, requests, path, out };
}

/** Expects the run to end ok with exactly the second version on disk and in files.parquet, no `.part` left. */
async function expectSecond(result: Awaited<ReturnType<typeof changedBetweenRuns>>, second: FileVersion) {
  expect(result.again.stderr).toBe('');
  expect(result.again.code).toBe(0);
  expect((await bytesOf(result.path)).equals(second.body)).toBe(true);
  const [row] = await readFilesTable(result.out);
  expect([row!['status'], row!['sha256']]).toEqual(['ok', sha256(second.body)]);
  const folder = join(result.out, String(media!.routes[0]!.record['collection_id']));
  expect(await readdir(folder)).toEqual(['map.nii']);
}

it('an ETag: the continuation carries If-Range, the changed file comes whole (200) and is kept alone', async () => {
  const first = { body: niiBytes(1, SIZE), etag: '"v1"' };
  const second = { body: niiBytes(2, SIZE), etag: '"v2"' };
  const result = await changedBetweenRuns(first, second);
  expect(result.requests.map((r) => [r.headers['range'], r.headers['if-range']])).toEqual([
    [`bytes=${SIZE / 2}-`, '"v1"'],
  ]);
  await expectSecond(result, second);
});

it('Last-Modified only: it is the If-Range validator', async () => {
  const first = { body: niiBytes(3, SIZE), lastModified: 'Mon, 01 Mar 2021 10:00:00 GMT' };
  const second = { body: niiBytes(4, SIZE), lastModified: 'Tue, 02 Mar 2021 10:00:00 GMT' };
  const result = await changedBetweenRuns(first, second);
  expect(result.requests.map((r) => [r.headers['range'], r.headers['if-range']])).toEqual([
    [`bytes=${SIZE / 2}-`, first.lastModified],
  ]);
  await expectSecond(result, second);
});

it('no validator: the .part is not continued but fetched again from byte 0', async () => {
  const first = { body: niiBytes(5, SIZE) };
  const second = { body: niiBytes(6, SIZE) };
  const result = await changedBetweenRuns(first, second);
  expect(result.requests.map((r) => [r.headers['range'], r.headers['if-range']])).toEqual([[undefined, undefined]]);
  await expectSecond(result, second);
});

it('a server that ignores If-Range: a 206 of another ETag is dropped and the file fetched again whole', async () => {
  const first = { body: niiBytes(7, SIZE), etag: '"v1"' };
  const second = { body: niiBytes(8, SIZE), etag: '"v2"' };
  const result = await changedBetweenRuns(first, second, false);
  expect(result.requests.map((r) => [r.headers['range'], r.headers['if-range']])).toEqual([
    [`bytes=${SIZE / 2}-`, '"v1"'],
    [undefined, undefined],
  ]);
  await expectSecond(result, second);
});

it('an unchanged file is continued from the .part, If-Range matching', async () => {
  const first = { body: niiBytes(9, SIZE), etag: '"v1"' };
  const result = await changedBetweenRuns(first, first);
  expect(result.requests.map((r) => [r.headers['range'], r.headers['if-range']])).toEqual([
    [`bytes=${SIZE / 2}-`, '"v1"'],
  ]);
  await expectSecond(result, first);
});
