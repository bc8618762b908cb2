/**
 * A run that writes CSV stages each row's CSV record with the page's columns (and a run that writes CSV alone, whose
 * write reads no row, the records without the columns), and the CSV file is written from those records; a run
 * resumed with other formats or another neutralise setting than the pages were staged with writes the CSV from the
 * rows instead, encoding again from its staged body a page staged without what it reads. Either way, images.csv is
 * the same bytes as a fresh run's, and images.parquet holds the same values.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchBufferNames } from '../../../src/load/arrow/batch-buffers.js';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';
import { runCliHere } from '../../helpers/run-cli.js';

let server: ScriptedServer;
let failing = false; // while true, the list answers 404 from offset 1,200: the run stops with 30 pages staged
const dirs: string[] = [];
afterAll(async () => {
  await server.close();
  for (const dir of dirs) await removeDir(dir);
});

async function newDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  return dir;
}

/** 2,400 records (the first 1,000 are a batch of the write), one in five with values a spreadsheet would run. */
function records(): Record<string, unknown>[] {
  return madeRecords(2_400).map((record, i) =>
    i % 5 === 0 ? { ...record, name: `=HYPERLINK("x${i}")`, description: `+${i}`, figure: `@${i}` } : record,
  );
}

const args = (out: string, ...more: string[]) => [
  '--base-url',
  server.origin,
  '--out',
  out,
  '--page-size',
  '40',
  ...more,
];

/** images.csv of a fresh run with `more`. */
async function freshCsv(...more: string[]): Promise<Buffer> {
  const out = await newDir();
  const run = await runCliHere(args(out, ...more));
  expect(run.code, run.stderr).toBe(0);
  return readFile(join(out, 'images.csv'));
}

/**
 * The folder of a run with `first` stopped after 30 staged pages, then resumed with `then`; `staged` is told the
 * columns of a page staged by the first.
 */
async function resumed(first: string[], then: string[], staged?: (names: string[]) => void): Promise<string> {
  const out = await newDir();
  failing = true;
  expect((await runCliHere(args(out, ...first))).code).toBe(1);
  const staging = join(out, '.img-etl-staging');
  const columns = (await readdir(staging)).find((name) => /^p1-.*\.arrow$/.test(name))!;
  staged?.(batchBufferNames(await readFile(join(staging, columns))));
  failing = false;
  const run = await runCliHere(args(out, ...then));
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/discarded/); // it did resume
  return out;
}

/** images.csv of a run with `first` stopped after 30 staged pages, then resumed with `then`. */
async function resumedCsv(first: string[], then: string[], staged?: (names: string[]) => void): Promise<Buffer> {
  return readFile(join(await resumed(first, then, staged), 'images.csv'));
}

/** Every row of the images.parquet in `out`, as DuckDB reads it, in id order. */
async function parquetRows(out: string): Promise<Record<string, unknown>[]> {
  const connection = await openDuckDB();
  return query(connection, `SELECT * FROM read_parquet(${sqlString(join(out, 'images.parquet'))}) ORDER BY id`);
}

describe('CSV from staged records', () => {
  it('is the same bytes whatever the pages were staged with', async () => {
    server = await startListServer(records(), { fail: (offset) => (failing && offset >= 1_200 ? 404 : undefined) });
    const csv = await freshCsv('--to', 'csv');
    const kept = await freshCsv('--to', 'csv', '--no-neutralise-formulas');
    expect(csv.toString()).toContain(`'=HYPERLINK(""x0"")`);
    expect(kept.toString()).toContain(`"=HYPERLINK(""x0"")"`);
    // staged without CSV records, written from rows read straight from the pages (no Arrow format)
    expect((await resumedCsv(['--to', 'parquet'], ['--to', 'csv'])).equals(csv)).toBe(true);
    // staged with records neutralised, written with the other setting beside Parquet (rows from the gathered batches)
    const other = await resumedCsv(['--to', 'csv'], ['--to', 'csv,parquet', '--no-neutralise-formulas']);
    expect(other.equals(kept)).toBe(true);
    // staged with CSV records throughout, as a fresh run; and without the table's columns: the write reads no row
    const alone = (names: string[]) => expect(names).toEqual(['img-etl.replaced', 'collection_id', 'img-etl.csv']);
    expect((await resumedCsv(['--to', 'csv'], ['--to', 'csv'], alone)).equals(csv)).toBe(true);
    const beside = (names: string[]) => expect(names.slice(-2)).toEqual(['img-etl.replaced', 'img-etl.csv']);
    expect((await resumedCsv(['--to', 'csv,parquet'], ['--to', 'csv'], beside)).equals(csv)).toBe(true);
    // staged for CSV alone, written as Parquet: each page encoded again from its staged body, the same values
    const fresh = await newDir();
    expect((await runCliHere(args(fresh, '--to', 'parquet'))).code).toBe(0);
    const parquet = await resumed(['--to', 'csv'], ['--to', 'parquet', '--snapshot'], alone);
    expect(await parquetRows(join(parquet, 'latest'))).toEqual(await parquetRows(fresh));
  });
});
