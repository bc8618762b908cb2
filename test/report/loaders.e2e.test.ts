/**
 * The loaders of a snapshot folder: load.sql run in DuckDB gives views with the exact types and the same
 * rows as the files (from Parquet, and from CSV where a snapshot has only CSV), and the collections join when the
 * collections table is there; load.py run by Debian's pandas (installed by the test set-up) reads every row with the
 * nullable dtypes and categories, keeping a name such as "None".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdbType, loadSql } from '../../src/report/load-sql.js';
import type { ReportData } from '../../src/report/report-data.js';
import { COLUMNS } from '../../src/schema/columns.js';
import { startService } from '../../src/service/index.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import { makeReportSnapshots, type ReportSnapshots } from '../helpers/report-snapshots.js';
import { openDuckDB, PANDAS_DTYPES, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';
import { DEBIAN_PYTHON, missingTools } from '../helpers/test-tools.js';

let dir: string;
let snaps: ReportSnapshots;
let csvOnly: string;
let unavailable: string | undefined;

/** A fresh DuckDB with load.sql of `folder` run in it. */
async function loaded(folder: string, sql?: string): Promise<DuckDBConnection> {
  const db = await openDuckDB();
  await query(db, `SET file_search_path = ${sqlString(folder)}`);
  await db.run(sql ?? (await readFile(join(folder, 'load.sql'), 'utf8')));
  return db;
}

/** Every column as text, for comparing two sources row by row. */
const asText = COLUMNS.map((c) => `CAST("${c.name}" AS VARCHAR) AS "${c.name}"`).join(', ');

async function differingRows(db: DuckDBConnection, a: string, b: string): Promise<number> {
  const only = (x: string, y: string) => `(SELECT ${asText} FROM ${x} EXCEPT ALL SELECT ${asText} FROM ${y})`;
  const [r] = await query(db, `SELECT count(*) AS n FROM (${only(a, b)} UNION ALL ${only(b, a)})`);
  return Number(r!['n']);
}

beforeAll(async () => {
  unavailable = missingTools(['python3-pandas']);
  dir = await tempDir();
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 600);
  const service = await startService({ data: fixtureLines(), records: 600, seed: 7 });
  try {
    for (const to of ['csv', 'parquet']) {
      const args = ['--base-url', service.url, '--out', join(dir, to), '--snapshot', '--to', to, '--quiet'];
      const run = await runCliHere(args);
      expect(run.code).toBe(0);
    }
  } finally {
    await service.close();
  }
  csvOnly = join(dir, 'csv', 'latest');
}, 900_000);
afterAll(async () => {
  await removeDir(dir);
});

describe('load.sql in DuckDB', () => {
  it('makes the view images: columns exactly typed, ENUMs for categories, the rows of images.parquet', async () => {
    const folder = snaps.folders[1]!;
    const db = await loaded(folder);
    const described = await query(db, 'DESCRIBE images');
    expect(described.map((r) => r['column_name'])).toEqual(COLUMNS.map((c) => c.name));
    for (const [k, c] of COLUMNS.entries()) {
      const type = String(described[k]!['column_type']);
      const want: unknown =
        c.type.kind === 'category'
          ? expect.stringMatching(/^ENUM\(/)
          : duckdbType(c).replace('TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE');
      expect({ column: c.name, type }).toEqual({ column: c.name, type: want });
    }
    const [{ n }] = (await query(db, 'SELECT count(*) AS n FROM images')) as [{ n: bigint }];
    expect(Number(n)).toBe(snaps.served.length);
    expect(await differingRows(db, 'images', `read_parquet(${sqlString(join(folder, 'images.parquet'))})`)).toBe(0);
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8')) as ReportData;
    const types = await query(db, 'SELECT enum_range(NULL::map_type_enum) AS v');
    const mapTypes = report.counts['map_type']!.flatMap((v) => (v.value === null ? [] : [v.value]));
    expect([...(types[0]!['v'] as string[])].sort()).toEqual(mapTypes.sort());
    // Running it again replaces what it made.
    await db.run(await readFile(join(folder, 'load.sql'), 'utf8'));
  });

  it('reads a snapshot of CSV only with the same types and the same rows as Parquet of the same service', async () => {
    const db = await loaded(csvOnly);
    const sql = await readFile(join(csvOnly, 'load.sql'), 'utf8');
    expect(sql).toContain("read_csv('images.csv'");
    // A Parquet snapshot of the same service: the same rows, so the same ENUMs too.
    const parquet = join(dir, 'parquet', 'latest');
    const types = async (conn: DuckDBConnection) =>
      (await query(conn, 'DESCRIBE images')).map((r) => `${String(r['column_name'])} ${String(r['column_type'])}`);
    expect(await types(db)).toEqual(await types(await loaded(parquet)));
    expect(await differingRows(db, 'images', `read_parquet(${sqlString(join(parquet, 'images.parquet'))})`)).toBe(0);
  });

  it('with the collections table: the collections view and each image joined with its collection', async () => {
    const folder = join(dir, 'with-collections');
    await cp(snaps.folders[1]!, folder, { recursive: true });
    const db = await openDuckDB();
    const rows = await query(
      db,
      `SELECT DISTINCT collection_id AS id, 'owner ' || (collection_id % 3) AS owner_name
      FROM read_parquet(${sqlString(join(folder, 'images.parquet'))}) WHERE collection_id % 5 <> 0`,
    );
    const values = rows.map((r) => `(${Number(r['id'])}, ${sqlString(String(r['owner_name']))})`).join(', ');
    const [images, table] = [join(folder, 'images.parquet'), join(folder, 'collections.parquet')].map(sqlString);
    await query(db, `COPY (SELECT * FROM (VALUES ${values}) AS t(id, owner_name)) TO ${table} (FORMAT parquet)`);
    await listInManifest(folder, 'collections.parquet', rows.length); // report checks a file against its manifest
    const categories = await allCategories(folder);
    const sql = loadSql({ files: new Set(['images.parquet']), categories, collections: true });
    await writeFile(join(folder, 'load.sql'), sql);
    const joined = await loaded(folder);
    const [c] = await query(
      joined,
      `SELECT count(*) AS n, count(collection_record) AS with_collection,
      count(*) FILTER (WHERE collection_record.owner_name = 'owner ' || (collection_id % 3)) AS right_owner
      FROM images_with_collection`,
    );
    const [want] = await query(
      db,
      `SELECT count(*) FILTER (WHERE collection_id % 5 <> 0) AS n
      FROM read_parquet(${images})`,
    );
    expect({ n: Number(c!['n']), with: Number(c!['with_collection']), right: Number(c!['right_owner']) }).toEqual({
      n: snaps.served.length,
      with: Number(want!['n']),
      right: Number(want!['n']),
    });
    // img-etl report reads the owners from it: each owner's maps as DuckDB joins them.
    const out = join(dir, 'owners.html');
    expect((await runCliHere(['report', folder, '--out', out])).code).toBe(0);
    const read = JSON.parse(await readFile(join(dir, 'owners.json'), 'utf8')) as ReportData;
    const owners = await query(
      db,
      `SELECT coalesce(c.owner_name, '(not in the collections table)') AS owner,
      count(*) AS records FROM read_parquet(${images}) AS i LEFT JOIN read_parquet(${table}) AS c
      ON c.id = i.collection_id GROUP BY 1 ORDER BY records DESC, owner`,
    );
    const shares = owners.map((o) => ({ owner: o['owner'], records: Number(o['records']) }));
    expect(read.collections.owners).toEqual(shares.map((o) => ({ ...o, share: o.records / read.records })));
    expect(read.collections.owners_note).toBeNull();
  });
});

/** Every value of each category column of a folder's images.parquet, sorted. */
async function allCategories(folder: string): Promise<Map<string, string[]>> {
  const db = await openDuckDB();
  const result = new Map<string, string[]>();
  for (const c of COLUMNS.filter((col) => col.type.kind === 'category')) {
    const file = sqlString(join(folder, 'images.parquet'));
    const rows = await query(
      db,
      `SELECT DISTINCT "${c.name}"::VARCHAR AS v FROM read_parquet(${file})
      WHERE "${c.name}" IS NOT NULL`,
    );
    result.set(
      c.name,
      rows.map((r) => String(r['v'])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
  return result;
}

describe('load.py in pandas', () => {
  it('reads images.csv (keep_default_na=False): rows, nullable dtypes, categories, UTC, "None"', async (ctx) => {
    if (unavailable !== undefined) {
      console.warn(`loaders: load.py not run: ${unavailable}`);
      ctx.skip();
    }
    const folder = snaps.folders[1]!;
    const output = execFileSync(DEBIAN_PYTHON, ['load.py', '--csv', '--json'], { cwd: folder, encoding: 'utf8' });
    type Loaded = { source: string; rows: number; dtypes: Record<string, string>; non_null: Record<string, number> };
    const loadedFrame = (JSON.parse(output) as { images: Loaded }).images;
    expect(loadedFrame.source).toBe('images.csv');
    expect(loadedFrame.rows).toBe(snaps.served.length);
    const utc: unknown = expect.stringMatching(/^datetime64\[(ns|us), UTC\]$/);
    const dtype = (c: (typeof COLUMNS)[number]) => (c.type.kind === 'timestamp' ? utc : PANDAS_DTYPES[c.type.kind]);
    const dtypes = Object.fromEntries(COLUMNS.map((c) => [c.name, dtype(c)]));
    expect(loadedFrame.dtypes).toEqual(dtypes);
    const db = await openDuckDB();
    const counted = COLUMNS.map((c) => `count("${c.name}") AS "${c.name}"`).join(', ');
    const file = sqlString(join(folder, 'images.parquet'));
    const [counts] = await query(db, `SELECT ${counted} FROM read_parquet(${file})`);
    expect(loadedFrame.non_null).toEqual(Object.fromEntries(COLUMNS.map((c) => [c.name, Number(counts![c.name])])));
    expect(snaps.served.filter((r) => r['name'] === 'None' || r['description'] === 'NA')).toHaveLength(2);
  });

  it('on Parquet: reads it where pandas has a Parquet engine, else says in one line what to install', async (ctx) => {
    if (unavailable !== undefined) {
      console.warn(`loaders: load.py not run: ${unavailable}`);
      ctx.skip();
    }
    const folder = join(dir, 'parquet', 'latest');
    const engine = ['pyarrow', 'fastparquet'].some((m) => {
      try {
        execFileSync(DEBIAN_PYTHON, ['-c', `import ${m}`], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    });
    const run = spawnSync(DEBIAN_PYTHON, ['load.py'], { cwd: folder, encoding: 'utf8' });
    if (engine) {
      expect([run.status, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toMatch(/^load\.py: pandas \S+ read images \d+ rows from images\.parquet\n$/);
    } else {
      // Debian 12 packages neither pyarrow nor fastparquet: the message, not a traceback.
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      const file = join(await realpath(folder), 'images.parquet');
      const want = `load.py: ${file} is Parquet, which pandas reads with pyarrow or fastparquet, and neither is`;
      expect(run.stderr).toMatch(/^load\.py: .* \(pip install pyarrow\), or read a snapshot written with --to csv/);
      expect(run.stderr.startsWith(want)).toBe(true);
      expect(run.stderr.split('\n')).toHaveLength(2); // one line and its end
    }
  });

  it('in a --to csv snapshot: says in a line which files it read; collections and the join from CSV', async (ctx) => {
    if (unavailable !== undefined) ctx.skip(unavailable);
    const line = execFileSync(DEBIAN_PYTHON, ['load.py'], { cwd: csvOnly, encoding: 'utf8' });
    const collections =
      /^load\.py: pandas 1\.5\.\d+ read images (\d+) rows from images\.csv, collections (\d+) rows from collections\.csv\n$/;
    expect(line).toMatch(collections);
    const manifest = JSON.parse(await readFile(join(csvOnly, 'manifest.json'), 'utf8')) as {
      records_written: number;
      collections: { records_written: number };
    };
    const [images, collected] = [manifest.records_written, manifest.collections.records_written].map(String);
    expect(collections.exec(line)!.slice(1)).toEqual([images, collected]);
    // collections() and images_with_collection(), imported as a user would: typed, no column left as object
    const code = [
      'import sys; sys.path.insert(0, ".")',
      'import load',
      'c, j = load.collections(), load.images_with_collection()',
      'print(len(c), len(j), c.attrs["source"], sum(str(t) == "object" for t in [*c.dtypes, *j.dtypes]))',
    ].join('\n');
    const printed = execFileSync(DEBIAN_PYTHON, ['-c', code], { cwd: csvOnly, encoding: 'utf8' }).trim().split(' ');
    expect(printed).toEqual([collected, images, 'collections.csv', '0']);
  });
});

/** Makes the manifest in `folder` give the size, sha256 and rows of its file `name` (and its count), as a run would. */
async function listInManifest(folder: string, name: string, rows: number): Promise<void> {
  const path = join(folder, 'manifest.json');
  const manifest = JSON.parse(await readFile(path, 'utf8')) as {
    files: Record<string, unknown>[];
    collections?: Record<string, unknown>;
  };
  const bytes = await readFile(join(folder, name));
  const entry = manifest.files.find((f) => f['name'] === name)!;
  Object.assign(entry, { rows, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  // the collections' count of rows written, which report also checks against the file's rows
  if (name.startsWith('collections.') && manifest.collections) manifest.collections['records_written'] = rows;
  await writeFile(path, JSON.stringify(manifest, null, 2));
}
