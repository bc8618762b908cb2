/**
 * A pipeline can change the table. `img-etl run derived-columns` writes every image with `add_year`
 * (the UTC year of `add_date`), complete, exact and resumable under an unstable list order exactly like the default
 * snapshot; the staging's identity names the pipeline and its file, so another or a changed pipeline never resumes it.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { COLUMNS } from '../../src/schema/columns.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { readManifest } from '../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../helpers/read-snapshot.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { killWhen } from '../helpers/kill-when.js';
import { CLI, runCliHere } from '../helpers/run-cli.js';

const services: RunningService[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const service of services) await service.close();
  for (const dir of dirs) await removeDir(dir);
});

async function newDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  return dir;
}

/** The bundled service whose list order changes on every request (the run must reconcile through the collections). */
async function unstableService(seed: number, pageLatencyMs = 0): Promise<RunningService> {
  const faults = { unstableOrderRate: 1, unstableOrderMode: 'rotate' as const, faultSeed: seed, pageLatencyMs };
  const service = await startFixtureService({ records: 1200, seed, faults });
  services.push(service);
  return service;
}

const PAGE = 40;
const common = (service: RunningService, out: string) => [
  '--base-url',
  service.url,
  '--out',
  out,
  '--page-size',
  String(PAGE),
];

/** The UTC year of an ISO 8601 text with an offset, as Date reads it (independent of the pipeline's arithmetic). */
const utcYear = (text: string) => new Date(Date.parse(text)).getUTCFullYear();

/** images.parquet's column names in file order and each id's add_year, read by DuckDB. */
async function readAddYear(dir: string): Promise<{ names: string[]; years: Map<bigint, bigint | null> }> {
  const db = await openDuckDB();
  const file = sqlString(join(dir, 'images.parquet'));
  const names = (await query(db, `DESCRIBE SELECT * FROM read_parquet(${file})`)).map((r) => r['column_name']);
  const rows = await query(db, `SELECT id, add_year FROM read_parquet(${file})`);
  return {
    names: names as string[],
    years: new Map(rows.map((r) => [BigInt(r['id'] as bigint), r['add_year'] as bigint | null])),
  };
}

/** The run's images are every record the service serves, each value as served, and add_year of each. */
async function expectEveryImageWithAddYear(service: RunningService, dir: string): Promise<void> {
  const manifest = await readManifest(dir);
  expect(manifest).toMatchObject({ complete: true, missing: 0, schema_version: '1+add_year' });
  const rows = await readParquetRows(dir);
  const ids = rows.map((r) => Number(r['id']));
  expect(new Set(ids)).toEqual(new Set(service.servedIds()));
  expectRowsMatch(rows, expectedRowsOf(service, ids));
  const { names, years } = await readAddYear(dir);
  const own = COLUMNS.map((c) => c.name);
  expect(names).toEqual([...own.slice(0, -1), 'add_year', 'extra']);
  let dated = 0;
  for (const id of ids) {
    const served = JSON.parse(service.dataset.recordJson(id, service.url)) as Record<string, unknown>;
    const text = served['add_date'];
    const want = typeof text === 'string' && text !== '' ? BigInt(utcYear(text)) : null;
    if (want !== null) dated++;
    expect([id, years.get(BigInt(id))]).toEqual([id, want]);
  }
  expect(dated).toBeGreaterThan(1000);
}

/** Starts `args` in the CLI and kills it with SIGKILL once the staging journal holds `pages` pages. */
async function killAfterPages(args: string[], out: string, pages: number): Promise<void> {
  await killWhen(args, out, (entries) => entries.filter((e) => e.type === 'page').length >= pages, 20_000);
}

describe('img-etl run derived-columns', () => {
  it('under an unstable order: every image, exact, with add_year after the own columns, complete', async () => {
    const service = await unstableService(61);
    const out = await newDir();
    const run = await runCliHere(['run', 'derived-columns', ...common(service, out)]);
    expect(run.code, run.stderr).toBe(0);
    const manifest = await readManifest(out);
    expect(manifest.completeness.reconciliation.added).toBeGreaterThan(0); // the order did move under the run
    expect(manifest.pipeline?.name).toBe('derived-columns');
    await expectEveryImageWithAddYear(service, out);
  });

  it('killed with SIGKILL, the same command resumes its staging and is complete and exact', async () => {
    const service = await unstableService(62, 5);
    const out = await newDir();
    const args = ['run', 'derived-columns', ...common(service, out)];
    await killAfterPages(args, out, 8);
    service.resetStats();
    const resumed = await runCliHere(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming pass 1: \d+ pages \(\d+ records\) were fetched by an earlier attempt/);
    // The pages staged before the kill were not fetched again.
    expect(service.stats.listRequests).toBeLessThanOrEqual(Math.ceil(service.dataset.size / PAGE) - 8);
    await expectEveryImageWithAddYear(service, out);
  });

  it("another pipeline, or the same pipeline's file changed, never resumes the staging", async () => {
    const service = await unstableService(63, 5);
    const out = await newDir();
    const staging = join(out, '.img-etl-staging');
    // A user's copy of the pipeline, run by path, killed mid-run.
    const file = join(await newDir(), 'years.mjs');
    const lib = join(CLI, '..', '..', 'index.js');
    const source = (await readFile(join(CLI, '..', '..', '..', 'pipelines', 'derived-columns.js'), 'utf8')).replace(
      '../src/index.js',
      lib,
    );
    await writeFile(file, source);
    await killAfterPages(['run', file, ...common(service, out)], out, 4);

    const other = await runCliHere(common(service, out)); // the default job: pipeline full-snapshot
    expect(other.code).toBe(1);
    expect(other.stderr).toBe(
      `img-etl: staging: ${staging} holds an unfinished run of ${service.listUrl} with page size ${PAGE} by ` +
        'pipeline derived-columns; run that command again to finish it, or add --fresh to discard it\n',
    );
    // The changed pipeline discards the staging of its file as it was (no run can finish that), starts afresh and is
    // complete.
    await writeFile(file, source.replace('Every image with add_year', 'Each image with add_year'));
    const changed = await runCliHere(['run', file, ...common(service, out)]);
    expect(changed.stderr).toContain(
      `img-etl: staging: ${staging} holds an unfinished run of pipeline derived-columns as its file was then, which ` +
        'no run of the file as it is now can finish; discarded it and started afresh\n',
    );
    expect(changed.stderr).not.toMatch(/resuming/);
    expect(changed.code).toBe(0);
    await expectEveryImageWithAddYear(service, out);
  });

  it('takes every option of the default snapshot: --snapshot, --to csv beside Parquet, the report', async () => {
    const service = await unstableService(64);
    const out = await newDir();
    const run = await runCliHere([
      'run',
      'derived-columns',
      ...common(service, out),
      '--snapshot',
      '--to',
      'parquet,csv',
    ]);
    expect(run.code).toBe(0);
    const latest = join(out, 'latest');
    await expectEveryImageWithAddYear(service, latest);
    const csv = await readFile(join(latest, 'images.csv'), 'utf8');
    expect(csv.slice(0, csv.indexOf('\n')).split(',').slice(-2)).toEqual(['add_year', 'extra']);
    const manifest = await readManifest(latest);
    expect(manifest.files.map((f) => f.name)).toEqual(expect.arrayContaining(['report.html', 'images.csv']));
    // A second run of the same pipeline over the same data writes byte-identical data files.
    const again = await runCliHere([
      'run',
      'derived-columns',
      ...common(service, out),
      '--snapshot',
      '--to',
      'parquet,csv',
    ]);
    expect(again.code).toBe(0);
    const secondManifest = await readManifest(join(out, 'latest'));
    const sha = (m: typeof manifest, name: string) => m.files.find((f) => f.name === name)?.sha256;
    expect(sha(secondManifest, 'images.parquet')).toBe(sha(manifest, 'images.parquet'));
    expect(sha(secondManifest, 'images.csv')).toBe(sha(manifest, 'images.csv'));
  });
});

/** A pipeline file adding `add_second` (int64), computed by `value`, an expression of `row`; the library's by path. */
function secondsPipeline(value: string): string {
  const lib = join(CLI, '..', '..', 'index.js');
  return [
    `import { definePipeline, derivedColumn, int64 } from '${lib}';`,
    'export default definePipeline({',
    "  name: 'seconds',",
    "  description: 'Every image with add_second, add_date in whole seconds',",
    "  formats: ['parquet', 'csv'],",
    `  columns: [derivedColumn('add_second', int64, 'add_date in seconds', (row) => ${value})],`,
    '});',
  ].join('\n');
}

/** A row's add_date (UTC microseconds, a BigInt) in whole seconds, as a BigInt: what a pipeline computes from it. */
const SECONDS = "typeof row['add_date'] === 'bigint' ? row['add_date'] / 1000000n : null";

describe('a derived int64 column', () => {
  it('takes a BigInt within the safe integers as that integer, in Parquet and CSV', async () => {
    const service = await startFixtureService({ records: 150, seed: 65 });
    services.push(service);
    const dir = await newDir();
    const file = join(dir, 'seconds.mjs');
    await writeFile(file, secondsPipeline(SECONDS));
    const out = join(dir, 'data');
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', out, '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const db = await openDuckDB();
    const parquet = sqlString(join(out, 'images.parquet'));
    const [type] = await query(db, `SELECT typeof(add_second) AS t FROM read_parquet(${parquet}) LIMIT 1`);
    expect(type?.['t']).toBe('BIGINT');
    const csv = sqlString(join(out, 'images.csv'));
    const fromCsv = await query(
      db,
      `SELECT id, add_second FROM read_csv(${csv}, all_varchar = true) ORDER BY id::BIGINT`,
    );
    const fromParquet = await query(db, `SELECT id, add_second FROM read_parquet(${parquet}) ORDER BY id`);
    expect(fromParquet).toHaveLength(service.dataset.size);
    let dated = 0;
    for (const [i, row] of fromParquet.entries()) {
      const served = JSON.parse(service.dataset.recordJson(Number(row['id']), service.url)) as Record<string, unknown>;
      const text = served['add_date'];
      const want = typeof text === 'string' && text !== '' ? BigInt(Math.trunc(Date.parse(text) / 1000)) : null;
      if (want !== null) dated++;
      expect(row['add_second'], `id ${String(row['id'])}`).toBe(want);
      expect(fromCsv[i]?.['add_second'], `id ${String(row['id'])}`).toBe(want === null ? null : String(want));
    }
    expect(dated).toBeGreaterThan(100);
  });

  it.each([
    ['9007199254740992n', '9007199254740992'],
    ['-9007199254740992n', '-9007199254740992'],
    ['2n ** 64n', '18446744073709551616'],
  ])(
    'refuses %s, beyond the safe integers, failing the run in one line naming the column and the value',
    async (value, shown) => {
      const service = await startFixtureService({ records: 20, seed: 66 });
      services.push(service);
      const dir = await newDir();
      const file = join(dir, 'beyond.mjs');
      await writeFile(file, secondsPipeline(value));
      const run = await runCliHere(['run', file, '--base-url', service.url, '--out', join(dir, 'data'), '--quiet']);
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n')).toHaveLength(2); // one line and its end
      expect(run.stderr).toContain(`column "add_second" holds ${shown}n (bigint), expected a safe integer`);
    },
  );
});

describe('a pipeline file changed after its run failed', () => {
  it('reruns afresh: the staging of the file as it was is discarded, with a line saying why, no --fresh', async () => {
    const service = await startFixtureService({ records: 400, seed: 67 });
    services.push(service);
    const dir = await newDir();
    const file = join(dir, 'seconds.mjs');
    const out = join(dir, 'data');
    const args = ['run', file, '--base-url', service.url, '--out', out, '--page-size', '50'];
    // The first version fails on a row past the first pages, after some were staged.
    const failing = `row['id'] > ${[...service.servedIds()].sort((a, b) => a - b)[200]} ? row.no.such : ${SECONDS}`;
    await writeFile(file, secondsPipeline(failing));
    const failed = await runCliHere(args);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/derived column "add_second" failed/);
    expect(existsSync(join(out, '.img-etl-staging'))).toBe(true);

    await writeFile(file, secondsPipeline(SECONDS)); // fixed
    const fixed = await runCliHere(args);
    expect(fixed.stderr).toContain(
      `img-etl: staging: ${join(out, '.img-etl-staging')} holds an unfinished run of pipeline seconds as its file ` +
        'was then, which no run of the file as it is now can finish; discarded it and started afresh\n',
    );
    expect(fixed.stderr).not.toMatch(/resuming|--fresh/);
    expect(fixed.code).toBe(0);
    const manifest = await readManifest(out);
    expect(manifest).toMatchObject({ complete: true, missing: 0, schema_version: '1+add_second' });
    expect(manifest.records_written).toBe(service.dataset.size);
  });
});
