/**
 * What the incremental-snapshot tests share: a service holding the real records, two that break the schema and
 * generated ones; `--snapshot` runs into a base folder; the latest snapshot read back and compared with what the
 * service serves, and with a `--full` run's data files.
 */
import { readFile, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import type { Manifest } from '../../src/run/publish/manifest.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { expectRowsMatch } from './expected-row.js';
import { fixtureLines } from './fixture-service.js';
import type { CliLikeOptions } from './library-run.js';
import { expectedRowsOf, readArrowRows, readParquetRows } from './read-snapshot.js';
import { removeDir, tempDir } from './readers.js';
import { runCliHere, type CliRun } from './run-cli.js';

/** The ids of the two records that break the schema. */
export const BAD_IDS = [990_001, 990_002];

/** The formats every run writes. */
export const FORMATS = ['--to', 'parquet,arrow,csv'];

/**
 * Services and folders for one test file, closed and removed after each test (or, `'all'`, after the tests of the
 * describe block it is called in): `serve` starts the real records, two copies that break the schema (in
 * rejects.ndjson) and `records` generated ones.
 */
export function incrementalFixture(after: 'each' | 'all' = 'each'): {
  serve: (records: number, seed: number) => Promise<RunningService>;
  newDir: () => Promise<string>;
} {
  const services: RunningService[] = [];
  const dirs: string[] = [];
  (after === 'each' ? afterEach : afterAll)(async () => {
    for (const s of services.splice(0)) await s.close();
    for (const d of dirs.splice(0)) await removeDir(d);
  });
  return {
    serve: async (records, seed) => {
      const lines = fixtureLines();
      const bad = [0, 7].map((i, n) => {
        const record = JSON.parse(lines[i]!) as Record<string, unknown>;
        return JSON.stringify({ ...record, id: BAD_IDS[n], file_size: 'large' });
      });
      const service = await startService({ records, seed, data: [...lines, ...bad] });
      services.push(service);
      return service;
    },
    newDir: async () => {
      const dir = await tempDir();
      dirs.push(dir);
      return dir;
    },
  };
}

/** A `--snapshot` run into `base`, 100 records a page. */
export const snapshot = (s: RunningService, base: string, ...args: string[]) =>
  runCliHere(['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '100', ...args]);

/**
 * What `snapshot(s, base, ...)` makes, taken by the library in this process as the CLI takes it (library-run.ts): for a
 * snapshot another command only reads or builds on. Every format and 100 records a page by default, as `snapshot`'s.
 * Throws unless the snapshot is complete; resolves to its manifest.
 */
export async function snapshotInProcess(
  s: Pick<RunningService, 'url'>,
  base: string,
  options: Omit<CliLikeOptions, 'baseUrl' | 'outDir' | 'snapshot'> = {},
): Promise<Manifest> {
  const run = { baseUrl: s.url, outDir: base, formats: ['parquet', 'arrow', 'csv'] as const, snapshot: true };
  // imported here: the files of this helper that take no snapshot in process do not load the library for it
  const { runAsCli } = await import('./library-run.js');
  const result = await runAsCli({ ...run, pageSize: 100, ...options });
  if (!result.manifest.complete) throw new Error(`snapshot into ${base} is incomplete`);
  return result.manifest;
}

export async function manifestOf(base: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(base, 'latest', 'manifest.json'), 'utf8')) as Manifest;
}

/** The data files of the latest snapshot of `base`: every file but the manifest, the report and the loaders. */
export async function dataFiles(base: string): Promise<Map<string, Buffer>> {
  const dir = join(base, 'latest');
  const names = (await readdir(dir)).filter((n) => !/^(manifest\.json|report\.|load\.)/.test(n));
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n))] as const)));
}

/** Checks that the latest snapshots of `base` and `full` hold the same data files, byte for byte; resolves to them. */
export async function expectSameDataFiles(base: string, full: string): Promise<Map<string, Buffer>> {
  const [incremental, fromFull] = [await dataFiles(base), await dataFiles(full)];
  expect([...incremental.keys()].sort()).toEqual([...fromFull.keys()].sort());
  for (const [name, bytes] of fromFull) expect(incremental.get(name)!.equals(bytes), name).toBe(true);
  return incremental;
}

/** Checks that the latest snapshot holds exactly what the service serves now, each value as served. */
export async function expectExact(s: RunningService, base: string): Promise<void> {
  const out = join(base, 'latest');
  const parquet = await readParquetRows(out);
  const ids = parquet.map((r) => Number(r['id']));
  const valid = s.servedIds().filter((id) => !BAD_IDS.includes(id));
  expect(new Set(ids)).toEqual(new Set(valid));
  expectRowsMatch(parquet, expectedRowsOf(s, ids));
  expectRowsMatch(await readArrowRows(out), expectedRowsOf(s, ids));
}

/** What raceTheSecondRead gives: the run, its arguments, and the collection deleted and the one shifted behind. */
export interface SecondReadRace {
  run: CliRun;
  args: string[];
  gone: number;
  shifted: number;
}

/**
 * Seed 74's race with the second read of the collections list (`s` serving 400 records at seed 74): collection 3 (on
 * the list's first page of five) and 7 (the first of its second) hold as many images. A base snapshot into `base`,
 * then an incremental run (pages of five, one at a time) during which `change(3)` is made once the second read has
 * asked for its first page: 3's going shifts 7 back onto that page, behind the read. The service builds a page as its
 * request arrives, then holds it 400 ms: a timer of this process seeing the request counted runs after that page was
 * built and before it is sent, so the change falls between the second read's first page and its next, whatever the
 * machine's load.
 */
export async function raceTheSecondRead(
  s: RunningService,
  base: string,
  change: (gone: number) => void,
): Promise<SecondReadRace> {
  const list = (await (await fetch(`${s.url}/api/collections/?limit=100`)).json()) as {
    results: { id: number; number_of_images: number }[];
  };
  const shifted = list.results[5]!;
  const gone = list.results.slice(0, 5).find((c) => c.number_of_images === shifted.number_of_images)!;
  expect([gone.id, shifted.id]).toEqual([3, 7]);
  const args = ['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '5', '--concurrency', '1'];
  await snapshotInProcess(s, base, { pageSize: 5, concurrency: 1 }); // the base the run below builds on
  s.resetStats();
  s.setFaults({ pageLatencyMs: 400 });
  let ended = false;
  const running = runCliHere(args).finally(() => (ended = true));
  const firstRead = Math.ceil(list.results.length / 5); // the first read's pages; the next request is the second's
  while (!ended && s.stats.collectionRequests <= firstRead) await sleep(1);
  change(gone.id);
  s.setFaults({ pageLatencyMs: 0 }); // the page in flight is still held; the rest need not be
  return { run: await running, args, gone: gone.id, shifted: shifted.id };
}
