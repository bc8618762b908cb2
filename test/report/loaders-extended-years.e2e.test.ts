/**
 * The loaders of a snapshot of CSV only read a timestamp the CSV writes in the extended-year form (an instant past
 * 9999-12-31 or before 0000-01-01 UTC, which a served offset can make of a four-digit year) as the instant the Parquet
 * file of the same service holds: load.sql in DuckDB, load.py in pandas 3.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/service/index.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

let dir: string;
/** The ids given extended-year instants. */
let late: number;
let early: number;

async function loaded(folder: string): Promise<DuckDBConnection> {
  const db = await openDuckDB();
  await query(db, `SET file_search_path = ${sqlString(folder)}`);
  await db.run(await readFile(join(folder, 'load.sql'), 'utf8'));
  return db;
}

beforeAll(async () => {
  dir = await tempDir();
  const records = fixtureLines().map((line) => JSON.parse(line) as Record<string, unknown>);
  const [a, b] = records.filter((r) => typeof r['add_date'] === 'string' && typeof r['modify_date'] === 'string');
  a!['add_date'] = '9999-12-31T23:00:00.000001-05:00'; // +010000-01-01T04:00:00.000001Z
  b!['modify_date'] = '0000-01-01T00:30:00+01:00'; // -000001-12-31T23:30:00.000000Z
  [late, early] = [a!['id'] as number, b!['id'] as number];
  const service = await startService({ data: records.map((r) => JSON.stringify(r)), records: 50, seed: 3 });
  try {
    for (const to of ['csv', 'parquet']) {
      const args = ['--base-url', service.url, '--out', join(dir, to), '--snapshot', '--to', to, '--quiet'];
      const run = await runCliHere(args);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
  } finally {
    await service.close();
  }
}, 300_000);
afterAll(async () => {
  await removeDir(dir);
});

describe('a CSV snapshot with instants outside years 0000-9999', () => {
  it('writes them in the extended-year form', async () => {
    const csv = await readFile(join(dir, 'csv', 'latest', 'images.csv'), 'utf8');
    expect(csv).toContain('+010000-01-01T04:00:00.000001Z');
    expect(csv).toContain('-000001-12-31T23:30:00.000000Z');
  });

  it('load.sql reads them as the instants images.parquet holds', async () => {
    const micros = async (folder: string) => {
      const db = await loaded(join(dir, folder, 'latest'));
      const rows = await query(
        db,
        `SELECT id, epoch_us(add_date)::VARCHAR AS a, epoch_us(modify_date)::VARCHAR AS m FROM images ` +
          `WHERE id IN (${late}, ${early}) ORDER BY id`,
      );
      return rows.map((r) => [Number(r['id']), r['a'], r['m']]);
    };
    const fromParquet = await micros('parquet');
    expect(fromParquet.find((r) => r[0] === late)![1]).toBe(String(253402315200000001n));
    expect(await micros('csv')).toEqual(fromParquet);
  });

  it('load.py reads them from images.csv as the instants it reads from images.parquet', (ctx) => {
    const missing = missingTools(['venv']);
    if (missing !== undefined) {
      console.warn(`loaders: load.py not run: ${missing}`);
      ctx.skip();
    }
    const script =
      'import sys, json; sys.path.insert(0, "."); import load\n' +
      'frame = load.images(format=sys.argv[1]).set_index("id")\n' +
      `cells = ((${late}, "add_date"), (${early}, "modify_date"))\n` +
      'micros = lambda t: t.asm8.astype("datetime64[us]").view("i8")\n' +
      'print(json.dumps([f"{micros(frame.loc[i, c])} {frame[c].dtype}" for i, c in cells]))\n';
    const read = (format: string) => {
      const cwd = join(dir, format, 'latest');
      return JSON.parse(execFileSync(VENV_PYTHON, ['-c', script, format], { cwd, encoding: 'utf8' })) as string[];
    };
    const fromParquet = read('parquet');
    expect(fromParquet[0]).toBe('253402315200000001 datetime64[us, UTC]');
    expect(read('csv')).toEqual(fromParquet);
  });
});
