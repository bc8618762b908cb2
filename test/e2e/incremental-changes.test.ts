/**
 * Issue 25, item 5: every kind of change between runs the bundled service models (a record edited, deleted and
 * inserted, a collection made private, one made public again, one deleted, a new one), made through
 * `RunningService.change`; then an incremental `--snapshot` run and a `--full` run write the same data files, byte for
 * byte, in every format. Real CLI, the bundled service over loopback HTTP.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import type { Manifest } from '../../src/run/manifest.js';
import { expectedRowsOf, readArrowRows, readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';

const services: RunningService[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await removeDir(d);
});

/** The ids of the two records that break the schema. */
const BAD_IDS = [990_001, 990_002];

/** The real records, two copies that break the schema (in rejects.ndjson), and `records` generated ones. */
async function serve(records: number, seed: number): Promise<RunningService> {
  const lines = fixtureLines();
  const bad = [0, 7].map((i, n) => {
    const record = JSON.parse(lines[i]!) as Record<string, unknown>;
    return JSON.stringify({ ...record, id: BAD_IDS[n], file_size: 'large' });
  });
  const service = await startService({ records, seed, data: [...lines, ...bad] });
  services.push(service);
  return service;
}

async function newDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  return dir;
}

const FORMATS = ['--to', 'parquet,arrow,csv'];
/** A `--snapshot` run into `base`, 100 records a page. */
const snapshot = (s: RunningService, base: string, ...args: string[]) =>
  runCli(['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '100', ...args]);

async function manifestOf(base: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(base, 'latest', 'manifest.json'), 'utf8')) as Manifest;
}

/** The data files of the latest snapshot of `base`: every file but the manifest, the report and the loaders. */
async function dataFiles(base: string): Promise<Map<string, Buffer>> {
  const dir = join(base, 'latest');
  const names = (await readdir(dir)).filter((n) => !/^(manifest\.json|report\.|load\.)/.test(n));
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n))] as const)));
}

/** Checks that the latest snapshot holds exactly what the service serves now, each value as served. */
async function expectExact(s: RunningService, base: string): Promise<void> {
  const out = join(base, 'latest');
  const parquet = await readParquetRows(out);
  const ids = parquet.map((r) => Number(r['id']));
  const valid = s.servedIds().filter((id) => !BAD_IDS.includes(id));
  expect(new Set(ids)).toEqual(new Set(valid));
  expectRowsMatch(parquet, expectedRowsOf(s, ids));
  expectRowsMatch(await readArrowRows(out), expectedRowsOf(s, ids));
}

describe('changes between runs', () => {
  it('an incremental run after every kind of change writes the bytes of a full run', async () => {
    const s = await serve(1500, 71);
    const [base, full] = [await newDir(), await newDir()];
    expect((await snapshot(s, base)).code).toBe(0);
    s.change({ kind: 'private', collections: 2, seed: 1 });
    expect((await snapshot(s, base)).code).toBe(0);
    for (const [kind, seed] of [
      ['edit', 2],
      ['delete', 3],
      ['insert', 4],
      ['private', 5],
      ['public', 6],
      ['delete-collection', 7],
      ['new-collection', 8],
    ] as const) {
      s.change({ kind, collections: 1, seed });
    }
    const run = await snapshot(s, base);
    expect(run.code).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ kind: 'incremental', complete: true, rejects: 2 });
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    const [incremental, fromFull] = [await dataFiles(base), await dataFiles(full)];
    expect([...incremental.keys()].sort()).toEqual([...fromFull.keys()].sort());
    for (const [name, bytes] of fromFull) expect(incremental.get(name)!.equals(bytes), name).toBe(true);
  });
});
