/**
 * `img-etl files` writes a file's bytes to disk as they arrive, not once the body has ended. A loopback
 * server sends the first half of a 24 MiB file and holds the rest until the `.part` on disk has every byte sent so
 * far: a client that held the body in memory would never get there. Then the rest follows, and the file is
 * byte-identical to what was served, its sha256 in files.parquet. (The peak RSS of a 1 GB file is measured by
 * `npm run bench`, files scenario: memory is no test's to judge.)
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  bytesOf,
  landingPath,
  niftiBytes,
  readFilesTable,
  type Rec,
  sha256,
  snapshotOf,
} from '../helpers/files-run.js';
import { madeRecords, startListServer } from '../helpers/list-server.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';

const SIZE = 24 * 1024 * 1024;
const HELD_AT = SIZE / 2;
/** How long the `.part` may take to hold the first half: far more than writing 12 MiB takes on any machine. */
const PATIENCE_MS = 45_000;

let server: ScriptedServer;
let root: string;
let record: Rec;
let release: () => void;
const released = new Promise<void>((resolve) => (release = resolve));
const bytes = niftiBytes(7001, SIZE);
const path = '/media/images/5/big.nii.gz';

beforeAll(async () => {
  let listed: Rec[] = [];
  server = await startListServer([], {
    records: () => listed,
    other: (req, res) => {
      if (req.url !== path) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': SIZE });
      res.write(bytes.subarray(0, HELD_AT));
      void released.then(() => res.end(bytes.subarray(HELD_AT)));
    },
  });
  listed = madeRecords(1, 7001).map((r) => ({ ...r, collection_id: 5, file: `${server.origin}${path}` }));
  listed = listed.map((r) => ({ ...r, file_size: SIZE }));
  record = listed[0]!;
  root = await tempDir();
});

afterAll(async () => {
  release();
  await server.close();
  await removeDir(root);
});

/** The `.part`'s size once it holds `bytes`, or what it held when patience ran out. */
async function partReaches(part: string, bytes: number): Promise<number> {
  const size = () =>
    stat(part).then(
      (s) => s.size,
      () => 0,
    );
  const until = Date.now() + PATIENCE_MS;
  while ((await size()) < bytes && Date.now() < until) await sleep(10);
  return size();
}

it('writes a file to disk as its bytes arrive, byte-identical to what is served', async () => {
  const snap = await snapshotOf({ url: server.origin }, join(root, 'snap'));
  const out = join(root, 'files');
  const run = runCliHere(['files', snap, '--out', out, '--quiet']);
  // While the server holds the second half, the first is on disk.
  expect(await partReaches(join(out, `${landingPath(record)}.part`), HELD_AT)).toBe(HELD_AT);
  release();
  const { code, stderr } = await run;
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const [row] = await readFilesTable(out);
  expect([row!['status'], row!['bytes'], row!['sha256']]).toEqual(['ok', SIZE, sha256(bytes)]);
  expect((await bytesOf(join(out, landingPath(record)))).equals(bytes)).toBe(true);
});
