/**
 * The README's Library section shows a user's own composition (a custom stage, a derived column, a
 * sink of their own) run by the one engine; this runs that block as written, as a program that imports `img-etl`,
 * against the bundled service under an unstable list order, and reads what it wrote back with DuckDB.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { readManifest } from '../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../helpers/read-snapshot.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Library\n'), readme.indexOf('## Development'));
const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];

let service: RunningService;
let cwd: string;
let run: { stdout: string; stderr: string };
beforeAll(async () => {
  const faults = { unstableOrderRate: 1, unstableOrderMode: 'rotate' as const, faultSeed: 71 };
  service = await startFixtureService({ records: 3500, seed: 71, faults });
  cwd = await tempDir();
  // The program imports the package by its name, as a user's would: node_modules/img-etl is this package.
  await mkdir(join(cwd, 'node_modules'));
  await symlink(ROOT, join(cwd, 'node_modules', 'img-etl'), 'dir');
  await writeFile(join(cwd, 'example.mjs'), example!.replaceAll("'https://neurovault.org'", `'${service.url}'`));
  run = await promisify(execFile)(process.execPath, ['example.mjs'], { cwd, timeout: 120_000 });
});
afterAll(async () => {
  await service?.close();
  await removeDir(cwd);
});

const tMaps = () => [...service.servedRecords()].filter((r) => r['map_type'] === 'T map');

describe("README: Library, a user's own composition", () => {
  it('is one js block that uses only the package name and neurovault.org', () => {
    expect(example).toContain("from 'img-etl'");
    expect(example).toContain("baseUrl: 'https://neurovault.org'");
  });

  it('prints its line: the T maps kept of every record received, complete', () => {
    const wanted = tMaps().length;
    expect(wanted).toBeGreaterThan(20);
    expect(run.stdout).toBe(`${wanted} T maps of ${service.dataset.size} records; complete: true\n`);
    expect(run.stderr).toBe('');
  });

  it('writes tmaps/images.parquet: exactly the T maps, each value as served, smoothness_cm derived', async () => {
    const manifest = await readManifest(join(cwd, 'tmaps'));
    expect(manifest).toMatchObject({ complete: true, missing: 0, schema_version: '1+smoothness_cm' });
    expect(manifest.duplicates_dropped).toBeGreaterThan(0); // the order moved under the run
    expect(manifest.files.find((f) => f.name === 'tmaps.csv')).toMatchObject({ format: 'sink', rows: tMaps().length });
    const rows = await readParquetRows(join(cwd, 'tmaps'));
    expectRowsMatch(
      rows,
      expectedRowsOf(
        service,
        tMaps().map((r) => r['id'] as number),
      ),
    );
    const db = await openDuckDB();
    const file = sqlString(join(cwd, 'tmaps', 'images.parquet'));
    const derived = await query(db, `SELECT id, smoothness_fwhm, smoothness_cm FROM read_parquet(${file})`);
    for (const row of derived) {
      const fwhm = row['smoothness_fwhm'] as number | null;
      expect([row['id'], row['smoothness_cm']]).toEqual([row['id'], fwhm === null ? null : fwhm / 10]);
    }
  });

  it("publishes the sink's tmaps.csv with the snapshot: the same rows, with the derived column", async () => {
    const db = await openDuckDB();
    const csv = sqlString(join(cwd, 'tmaps', 'tmaps.csv'));
    const parquet = sqlString(join(cwd, 'tmaps', 'images.parquet'));
    const header = (await readFile(join(cwd, 'tmaps', 'tmaps.csv'), 'utf8')).split('\n', 1)[0]!.split(',');
    expect(header.slice(-2)).toEqual(['smoothness_cm', 'extra']);
    const differ = await query(
      db,
      `SELECT count(*) AS n FROM (SELECT id, smoothness_cm FROM read_csv(${csv}, header = true) ` +
        `EXCEPT SELECT id, smoothness_cm FROM read_parquet(${parquet}))`,
    );
    expect(Number(differ[0]!['n'])).toBe(0);
    const count = await query(db, `SELECT count(*) AS n FROM read_csv(${csv}, header = true)`);
    expect(Number(count[0]!['n'])).toBe(tMaps().length);
  });
});
