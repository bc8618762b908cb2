/**
 * A run that writes CSV stages each row's CSV record with the page's columns, and the CSV file is written from
 * those records; a run resumed with other formats or another neutralise setting than the pages were staged with
 * writes the CSV from the rows instead. Either way, images.csv is the same bytes as a fresh run's.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
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

/** images.csv of a run with `first` stopped after 30 staged pages, then resumed with `then`. */
async function resumedCsv(first: string[], then: string[]): Promise<Buffer> {
  const out = await newDir();
  failing = true;
  expect((await runCliHere(args(out, ...first))).code).toBe(1);
  failing = false;
  const resumed = await runCliHere(args(out, ...then));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).not.toMatch(/discarded/); // it did resume
  return readFile(join(out, 'images.csv'));
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
    // staged with CSV records throughout, as a fresh run
    expect((await resumedCsv(['--to', 'csv'], ['--to', 'csv'])).equals(csv)).toBe(true);
  });
});
