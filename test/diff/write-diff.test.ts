import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DiffEntry } from '../../src/diff/diff-snapshots.js';
import { writeDiff } from '../../src/diff/write-diff.js';
import {
  expectResultMatchesFile,
  listDir,
  openDuckDB,
  query,
  removeDir,
  sqlString,
  tempDir,
} from '../helpers/readers.js';

let duck: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  duck = await openDuckDB();
});
afterAll(() => duck.closeSync());
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

async function* pages(entries: readonly DiffEntry[], size: number): AsyncGenerator<DiffEntry[]> {
  for (let at = 0; at < entries.length; at += size) yield entries.slice(at, at + size);
}

/** Entries of every kind, ids up to past 2^32, many changed fields and none. */
function sampleEntries(n: number): DiffEntry[] {
  const changes = ['added', 'removed', 'changed'] as const;
  const fields = ['url', 'name', 'add_date', 'map_type', 'BMI', 'extra'];
  return Array.from({ length: n }, (_, i) => {
    const change = changes[i % 3]!;
    return {
      id: i * 1000 + (i === n - 1 ? 2 ** 40 : 1),
      change,
      changed_fields: change === 'changed' ? fields.filter((_, k) => (i + k) % (k + 2) === 0) : [],
      context: { collection_id: i % 5 === 4 ? null : 7 + (i % 3), name: i % 7 === 6 ? null : `map ${i}, "a" =b` },
    };
  });
}

const rowsOf = (entries: DiffEntry[]) =>
  entries.map((e) => ({ id: BigInt(e.id), change: e.change, changed_fields: e.changed_fields }));
/** The columns of diff.csv and their types, for DuckDB's read_csv. */
const COLUMNS =
  "'id': 'BIGINT', 'change': 'VARCHAR', 'changed_fields': 'VARCHAR', 'collection_id': 'BIGINT', 'name': 'VARCHAR'";
/** The collection_id and name of each entry, as DuckDB reads them. */
const contextOf = (entries: DiffEntry[]) =>
  entries.map(({ context: c }) => ({
    collection_id: c['collection_id'] === null ? null : BigInt(c['collection_id'] as number),
    name: c['name'],
  }));

describe('writeDiff', () => {
  it(
    'writes diff.parquet with id BIGINT, change a dictionary-encoded VARCHAR and ' +
      'changed_fields VARCHAR[], read back by DuckDB',
    async () => {
      const entries = sampleEntries(20_000);
      const [result] = await writeDiff(pages(entries, 999), {
        dir,
        rowGroupSize: 6000,
        metadata: { 'img-etl.diff_old': 'a' },
      });
      expect(result).toMatchObject({ format: 'parquet', path: join(dir, 'diff.parquet'), rows: 20_000 });
      await expectResultMatchesFile(result!);
      expect(await listDir(dir)).toEqual(['diff.parquet']);
      const file = sqlString(result!.path);
      const described = await query(duck, `DESCRIBE SELECT * FROM read_parquet(${file})`);
      expect(described.map((d) => [d['column_name'], d['column_type']])).toEqual([
        ['id', 'BIGINT'],
        ['change', 'VARCHAR'],
        ['changed_fields', 'VARCHAR[]'],
        ['collection_id', 'BIGINT'],
        ['name', 'VARCHAR'],
      ]);
      expect(await query(duck, `SELECT id, change, changed_fields FROM read_parquet(${file})`)).toEqual(
        rowsOf(entries),
      );
      expect(await query(duck, `SELECT collection_id, name FROM read_parquet(${file})`)).toEqual(contextOf(entries));
      const groups = await query(
        duck,
        `SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${file}) ORDER BY 1`,
      );
      expect(groups.map((g) => Number(g['row_group_num_rows']))).toEqual([6000, 6000, 6000, 2000]);
      const encodings = await query(
        duck,
        `SELECT DISTINCT encodings FROM parquet_metadata(${file}) WHERE path_in_schema = 'change'`,
      );
      expect(String(encodings[0]!['encodings'])).toMatch(/DICTIONARY/);
      const kv = await query(
        duck,
        `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${file}) ` +
          `WHERE decode(key) = 'img-etl.diff_old'`,
      );
      expect(kv).toEqual([{ key: 'img-etl.diff_old', value: 'a' }]);
      const named = await query(
        duck,
        `SELECT count(*) AS n FROM read_parquet(${file}) WHERE list_contains(changed_fields, 'name')`,
      );
      expect(Number(named[0]!['n'])).toBe(entries.filter((e) => e.changed_fields.includes('name')).length);
    },
  );

  it(
    'writes diff.csv beside it in the same pass: header, names joined with commas, empty ' + 'for added and removed',
    async () => {
      const entries = sampleEntries(50);
      const results = await writeDiff(pages(entries, 7), { dir, formats: ['parquet', 'csv'] });
      expect(results.map((r) => [r.format, r.rows])).toEqual([
        ['parquet', 50],
        ['csv', 50],
      ]);
      for (const result of results) await expectResultMatchesFile(result);
      expect(await listDir(dir)).toEqual(['diff.csv', 'diff.parquet']);
      const text = await readFile(join(dir, 'diff.csv'), 'utf8');
      const lines = text.split('\n');
      expect(lines[0]).toBe('id,change,changed_fields,collection_id,name');
      expect(lines[1]).toBe(`${entries[0]!.id},added,,7,"map 0, ""a"" =b"`);
      expect(lines[3]).toBe(`${entries[2]!.id},changed,"${entries[2]!.changed_fields.join(',')}",9,"map 2, ""a"" =b"`);
      expect(lines[5]).toBe(`${entries[4]!.id},removed,,,"map 4, ""a"" =b"`);
      expect(lines[7]).toBe(`${entries[6]!.id},added,,7,`);
      expect(lines).toHaveLength(52); // header, 50 rows, and the empty string after the last LF
      const csv = sqlString(join(dir, 'diff.csv'));
      const read = await query(
        duck,
        `SELECT id, change, coalesce(changed_fields, '') AS changed_fields FROM read_csv(${csv}, header = true, ` +
          `columns = {${COLUMNS}})`,
      );
      expect(read).toEqual(
        entries.map((e) => ({ id: BigInt(e.id), change: e.change, changed_fields: e.changed_fields.join(',') })),
      );
      const context = await query(
        duck,
        `SELECT collection_id, name FROM read_csv(${csv}, header = true, columns = {${COLUMNS}})`,
      );
      expect(context).toEqual(contextOf(entries));
    },
  );

  it('writes valid files with no rows for an empty diff', async () => {
    const results = await writeDiff(pages([], 1), { dir, formats: ['csv', 'parquet'] });
    expect(results.map((r) => [r.format, r.rows])).toEqual([
      ['csv', 0],
      ['parquet', 0],
    ]);
    expect(await readFile(join(dir, 'diff.csv'), 'utf8')).toBe('id,change,changed_fields,collection_id,name\n');
    const file = sqlString(join(dir, 'diff.parquet'));
    expect(await query(duck, `SELECT count(*) AS n FROM read_parquet(${file})`)).toEqual([{ n: 0n }]);
    const described = await query(duck, `DESCRIBE SELECT * FROM read_parquet(${file})`);
    expect(described.map((d) => d['column_type'])).toEqual(['BIGINT', 'VARCHAR', 'VARCHAR[]', 'BIGINT', 'VARCHAR']);
  });

  it('leaves no file under a final name, and an earlier diff untouched, when the entries fail part way', async () => {
    await writeFile(join(dir, 'diff.parquet'), 'earlier');
    let released = false;
    async function* failing(): AsyncGenerator<DiffEntry[]> {
      try {
        yield sampleEntries(10);
        throw new Error('diff: cannot read /x/images.parquet: truncated');
      } finally {
        released = true;
      }
    }
    await expect(writeDiff(failing(), { dir, formats: ['parquet', 'csv'] })).rejects.toThrow(
      'diff: cannot read /x/images.parquet: truncated',
    );
    expect(released).toBe(true);
    expect(await listDir(dir)).toEqual(['diff.parquet']);
    expect(await readFile(join(dir, 'diff.parquet'), 'utf8')).toBe('earlier');
  });

  it("refuses a snapshot folder: it holds one run's files, those its manifest lists", async () => {
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ tool: 'img-etl 0.1.0', files: [] }));
    await expect(writeDiff(pages(sampleEntries(3), 2), { dir })).rejects.toMatchObject({
      code: 'DIFF_INVALID_OPTION',
      message:
        `diff: ${dir} is a snapshot folder, which holds one run's files; ` + 'write the diff into a folder of its own',
    });
    expect(await listDir(dir)).toEqual(['manifest.json']);
  });

  it('refuses an unknown format and an empty list of formats', async () => {
    await expect(writeDiff(pages([], 1), { dir, formats: ['arrow' as never] })).rejects.toThrow(
      'diff: unknown diff format "arrow"; choose from parquet, csv',
    );
    await expect(writeDiff(pages([], 1), { dir, formats: [] })).rejects.toThrow(
      'diff: no format to write; choose from parquet, csv',
    );
    expect(await listDir(dir)).toEqual([]);
  });
});
