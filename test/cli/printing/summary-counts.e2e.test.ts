/**
 * Summaries count what they name: a pipeline whose stages leave rows out says how many it wrote after them, and the
 * progress line before it does not promise the records read; a report covers the rows written; a loader has no rows.
 * The real CLI against the bundled service over loopback HTTP; the rows counted back with DuckDB.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { runCli } from '../../helpers/run-cli.js';

let out: string;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await removeDir(out);
});

/** Rows of a Parquet file, as DuckDB counts them. */
async function rowsOf(path: string): Promise<number> {
  const connection = await openDuckDB();
  try {
    const [row] = await query(connection, `SELECT count(*) AS n FROM read_parquet(${sqlString(path)})`);
    return Number(row!['n']);
  } finally {
    connection.closeSync();
  }
}

/** The summary's line for the file `name` (its path ends in it). */
function fileLine(stdout: string, name: string): string {
  return stdout.split('\n').find((line) => line.endsWith(`/${name}`) || line.includes(`/${name}  `)) ?? '';
}

it("a filtering pipeline: the written count after its stages, and 'writing' names the records read", async () => {
  service = await startFixtureService({ records: 500 });
  const run = await runCli(['run', 'group-z-t-maps', '--base-url', service.url, '--out', 'snaps', '--snapshot'], {
    cwd: out,
  });
  expect(run.stderr).not.toMatch(/img-etl: writing [\d,]+ records/);
  expect(run.stderr).toContain("img-etl: writing parquet: 559 records through the pipeline's stages\n");
  expect(run.code).toBe(0);
  const written = await rowsOf(join(out, 'snaps', 'latest', 'images.parquet'));
  expect(written).toBeGreaterThan(0);
  expect(written).toBeLessThan(559);
  const records = run.stdout.split('\n').find((line) => line.startsWith('  records   '));
  expect(records).toBe(
    `  records   ${written} written (${559 - written} of 559 left out by the pipeline's stages), 0 rejected; ` +
      'the service counts 559: 0 missing, 0 duplicates dropped',
  );
  expect(fileLine(run.stdout, 'images.parquet')).toMatch(new RegExp(`, ${written} rows$`));
  for (const name of ['report.html', 'report.json'])
    expect(fileLine(run.stdout, name)).toMatch(new RegExp(` [\\d.]+ k?B, covers the ${written} rows written$`));
  const report = JSON.parse(await readFile(join(out, 'snaps', 'latest', 'report.json'), 'utf8')) as {
    records: number;
  };
  expect(report.records).toBe(written);
  for (const name of ['load.sql', 'load.py']) expect(fileLine(run.stdout, name)).toMatch(/ [\d.]+ k?B$/);
});

it('a run without stages: writing the records read, all of them written', async () => {
  service = await startFixtureService({ records: 41 });
  const run = await runCli(['--base-url', service.url, '--out', 'snap'], { cwd: out });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain('img-etl: writing 100 records as parquet\n');
  expect(await rowsOf(join(out, 'snap', 'images.parquet'))).toBe(100);
  expect(run.stdout).toContain('  records   100 written, 0 rejected; the service counts 100: 0 missing');
  expect(fileLine(run.stdout, 'images.parquet')).toMatch(/ [\d.]+ k?B, 100 rows$/);
});
