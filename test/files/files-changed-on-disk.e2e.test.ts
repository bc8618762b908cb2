/**
 * A verified file changed on disk after `img-etl files` put it there. files.parquet records each
 * file's size and modification time; a rerun re-hashes a file whose size or mtime differ from the record and fetches
 * it again when its SHA-256 no longer matches. A change that keeps both size and mtime is caught by `--verify` only,
 * which re-hashes every kept file.
 */
import { open, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import {
  bytesOf,
  fileSizeWithin,
  landingPath,
  readFilesTable,
  type Rec,
  servedBytes,
  sha256,
  startSnapshottedService,
} from '../helpers/files-run.js';
import { openDuckDB, query, removeDir, sqlString } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let records: Rec[];
let counter = 0;
const fresh = (): string => join(root, `out-${++counter}`);
const FAST = ['--max-attempts', '2', '--retry-delay', '0.01', '--quiet'];

beforeAll(async () => {
  ({ service, root, snap, records } = await startSnapshottedService({ records: 120, seed: 23 }));
  records = records.filter(fileSizeWithin(1_000, 200_000));
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

/** Runs `files` for one record; the paths the service was asked for come back too. */
async function filesRun(out: string, record: Rec, ...more: string[]) {
  service.resetStats();
  const run = await runCliHere([
    'files',
    snap,
    '--out',
    out,
    '--where',
    `id = ${String(record['id'])}`,
    ...FAST,
    ...more,
  ]);
  return { ...run, asked: service.stats.files.log.map((e) => [e.path, e.status]) };
}

/** Flips every bit of the byte in the middle of a file, keeping its size. */
async function flipMiddleByte(path: string): Promise<void> {
  const file = await open(path, 'r+');
  try {
    const { size } = await file.stat();
    const byte = Buffer.alloc(1);
    await file.read(byte, 0, 1, Math.floor(size / 2));
    byte[0] = byte[0]! ^ 0xff;
    await file.write(byte, 0, 1, Math.floor(size / 2));
  } finally {
    await file.close();
  }
}

/** The mtime files.parquet records for the file at `path` (relative to `out`, as the table has it), in nanoseconds. */
async function recordedMtime(out: string, path: string): Promise<bigint> {
  const db = await openDuckDB();
  const rows = await query(
    db,
    `SELECT mtime_ns::VARCHAR AS mtime FROM read_parquet(${sqlString(join(out, 'files.parquet'))})
     WHERE path = ${sqlString(path)}`,
  );
  return BigInt(rows[0]!['mtime'] as string);
}

/** Expects the file and its files.parquet row to be the served one, ok. */
async function expectServed(out: string, record: Rec): Promise<void> {
  const served = await servedBytes(record['file'] as string);
  const path = join(out, landingPath(record));
  expect((await bytesOf(path)).equals(served)).toBe(true);
  const [row] = await readFilesTable(out);
  expect([row!['status'], row!['bytes'], row!['sha256'], row!['reason']]).toEqual([
    'ok',
    served.length,
    sha256(served),
    null,
  ]);
  expect(await recordedMtime(out, landingPath(record))).toBe((await stat(path, { bigint: true })).mtimeNs);
}

it('a byte flipped in a kept file (its mtime changed) is found by the next run and fetched again', async () => {
  const record = records[0]!;
  const media = new URL(record['file'] as string).pathname;
  const out = fresh();
  const first = await filesRun(out, record);
  expect(first.code).toBe(0);
  await expectServed(out, record);
  const path = join(out, landingPath(record));
  const before = await stat(path, { bigint: true });
  await flipMiddleByte(path);
  const after = await stat(path, { bigint: true });
  expect([after.size, after.mtimeNs === before.mtimeNs]).toEqual([before.size, false]);

  const again = await filesRun(out, record);
  expect(again.stderr).toBe('');
  expect(again.code).toBe(0);
  expect(again.asked).toEqual([[media, 200]]);
  expect(again.stdout).toContain('0 kept from disk');
  await expectServed(out, record);

  const third = await filesRun(out, record); // untouched since: kept without a request
  expect(third.asked).toEqual([]);
  expect(third.stdout).toContain('1 kept from disk');
});

it('a file touched but unchanged is re-hashed and kept; one changed under its old mtime needs --verify', async () => {
  const record = records[1]!;
  const media = new URL(record['file'] as string).pathname;
  const out = fresh();
  expect((await filesRun(out, record)).code).toBe(0);
  const path = join(out, landingPath(record));
  const when = new Date('2021-06-01T12:00:00Z');
  await utimes(path, when, when);

  const touched = await filesRun(out, record); // the mtime differs: re-hashed, the digest matches, kept
  expect(touched.code).toBe(0);
  expect(touched.asked).toEqual([]);
  expect(touched.stdout).toContain('1 kept from disk');
  await expectServed(out, record);

  // Size and mtime as recorded: a plain rerun does not read the file (the README says so), --verify does.
  await flipMiddleByte(path);
  await utimes(path, when, when);
  const blind = await filesRun(out, record);
  expect(blind.code).toBe(0);
  expect(blind.asked).toEqual([]);

  const verified = await filesRun(out, record, '--verify');
  expect(verified.stderr).toBe('');
  expect(verified.code).toBe(0);
  expect(verified.asked).toEqual([[media, 200]]);
  await expectServed(out, record);

  const unchanged = await filesRun(out, record, '--verify'); // re-hashed, matches: kept without a request
  expect(unchanged.code).toBe(0);
  expect(unchanged.asked).toEqual([]);
  expect(unchanged.stdout).toContain('1 kept from disk');
});
