/**
 * load.sql of a snapshot in which a category column holds no value (null in every record, or no record at all): an
 * ENUM of no values is made by DuckDB but breaks queries (`ORDER BY` it: "ENUM type requires at least one argument"),
 * so such a column is VARCHAR, all null.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportTap, runSnapshot, startService } from '../../src/index.js';
import { fixtureRecords } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';

/** 12 records, none with a sex. */
const SERVED = fixtureRecords()
  .slice(0, 12)
  .map((r) => JSON.stringify({ ...r, sex: null }));

let dir: string;
const folders: Record<string, string> = {};
beforeAll(async () => {
  dir = await tempDir();
  for (const [name, data] of [
    ['no sex', SERVED],
    ['empty', []],
  ] as const) {
    const service = await startService({ data: [...data], records: 0 });
    try {
      const options = { baseUrl: service.url, outDir: join(dir, name), snapshot: true, taps: [reportTap()] };
      folders[name] = (await runSnapshot(options)).dataDir;
    } finally {
      await service.close();
    }
  }
});
afterAll(async () => {
  await removeDir(dir);
});

describe('load.sql of a snapshot with a category column that holds no value', () => {
  for (const [name, rows] of [
    ['no sex', 12],
    ['empty', 0],
  ] as const) {
    it(`${name}: the column is VARCHAR and null, and a query can order by it`, async () => {
      const db = await openDuckDB();
      await query(db, `SET file_search_path = ${sqlString(folders[name]!)}`);
      await db.run(await readFile(join(folders[name]!, 'load.sql'), 'utf8'));
      const ordered = await query(db, 'SELECT id, sex FROM images ORDER BY sex, id');
      expect(ordered.map((r) => r['sex'])).toEqual(new Array(rows).fill(null));
      const [d] = await query(db, "SELECT column_type FROM (DESCRIBE images) WHERE column_name = 'sex'");
      expect(d!['column_type']).toBe('VARCHAR');
    });
  }
});
