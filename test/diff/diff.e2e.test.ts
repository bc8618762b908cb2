/**
 * `img-etl diff` end to end: snapshots taken by the real CLI from the bundled service over loopback HTTP, diffed by
 * the real CLI, the diff files read back by DuckDB.
 */
import { copyFile, mkdir, readdir, realpath, symlink, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Random, startService, type RunningService } from '../../src/service/index.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { runCliHere, type CliRun } from '../helpers/run-cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const GENERATED = 200;
const SEED = 7;

let dir: string;
let duck: DuckDBConnection;
/** Two snapshots of one unchanged service: Parquet by parquet-wasm, and Parquet by parquetjs-lite. */
let first: string;
let second: string;
/** An Arrow IPC snapshot after records were inserted, deleted and altered (same origin, so URLs compare equal). */
let changed: string;
let expected: { id: number; change: string; changed_fields: string[] }[];
let served: number;
/** Each record's collection_id and name as the first and the last service served them, by id. */
const servedNames: Map<number, { collection_id: unknown; name: unknown }>[] = [];

/** The collection_id and name of each record `service` serves, by id; an empty name is null in the files. */
function namesOf(service: RunningService): Map<number, { collection_id: unknown; name: unknown }> {
  const names = new Map<number, { collection_id: unknown; name: unknown }>();
  for (const r of service.servedRecords()) {
    names.set(r['id'] as number, { collection_id: r['collection_id'] ?? null, name: r['name'] || null });
  }
  return names;
}

async function snapshot(service: RunningService, out: string, ...extra: string[]): Promise<string> {
  const run = await runCliHere(['--base-url', service.url, '--out', out, '--page-size', '100', '--quiet', ...extra]);
  if (run.code !== 0) throw new Error(`snapshot into ${out} exited ${run.code}: ${run.stderr}`);
  return out;
}

/**
 * The fixture lines with some records altered; returns the lines and the fields each altered record changes in the
 * output.
 */
function alteredLines(): { lines: string[]; fields: Map<number, string[]> } {
  const records = fixtureLines().map((line) => JSON.parse(line) as Record<string, unknown>);
  const fields = new Map<number, string[]>();
  const pick = (test: (r: Record<string, unknown>) => boolean) => {
    const record = records.find((r) => !fields.has(r['id'] as number) && test(r));
    if (record === undefined) throw new Error('test: no fixture record fits');
    return record;
  };
  const renamed = pick((r) => typeof r['name'] === 'string');
  renamed['name'] = `${String(renamed['name'])} (edited)`;
  fields.set(renamed['id'] as number, ['name']);
  const touched = pick((r) => /\.\d{6}[+-]/.test(String(r['modify_date'])));
  touched['modify_date'] = String(touched['modify_date']).replace(
    /(\d)([+-]\d{2}:\d{2})$/,
    (_, d: string, zone: string) => `${(Number(d) + 1) % 10}${zone}`,
  ); // one microsecond
  fields.set(touched['id'] as number, ['modify_date']);
  const recast = pick(
    (r) =>
      typeof r['map_type'] === 'string' && typeof r['is_thresholded'] === 'boolean' && r['number_of_subjects'] === null,
  );
  recast['map_type'] = recast['map_type'] === 'Z map' ? 'T map' : 'Z map'; // a category
  recast['file_size'] = (recast['file_size'] as number) + 1; // an int64
  recast['is_thresholded'] = !recast['is_thresholded']; // a boolean
  recast['number_of_subjects'] = 12; // null to a value
  // in output column order
  fields.set(recast['id'] as number, ['file_size', 'map_type', 'is_thresholded', 'number_of_subjects']);
  // Served differently, written the same: an empty description is null in the output, so this is no change.
  const blank = pick((r) => r['description'] === '');
  blank['description'] = null;
  const alteredIds = new Set([renamed, touched, recast, blank].map((r) => r['id']));
  const lines = fixtureLines().map((line, i) =>
    alteredIds.has(records[i]!['id']) ? JSON.stringify(records[i]) : line,
  );
  return { lines, fields };
}

beforeAll(async () => {
  dir = await tempDir();
  duck = await openDuckDB();
  const original = await startService({ data: fixtureLines(), records: GENERATED, seed: SEED });
  const port = original.port;
  try {
    served = original.dataset.size;
    first = await snapshot(original, join(dir, 'first'), '--to', 'parquet');
    second = await snapshot(original, join(dir, 'second'), '--to', 'parquet', '--parquet-engine', 'parquetjs');
    servedNames.push(namesOf(original));
  } finally {
    await original.close();
  }
  // The same records on the same origin, with some altered, then some inserted and deleted.
  const { lines, fields } = alteredLines();
  const now = await startService({ data: lines, records: GENERATED, seed: SEED, port });
  try {
    const inserted = now.dataset.insert(3, new Random(11));
    const deleted = now.dataset.delete(4, new Random(12));
    // so the diffs below compare Parquet with Arrow IPC
    changed = await snapshot(now, join(dir, 'changed'), '--to', 'arrow');
    servedNames.push(namesOf(now));
    const gone = new Set(deleted);
    expected = [
      ...inserted.filter((id) => !gone.has(id)).map((id) => ({ id, change: 'added', changed_fields: [] })),
      ...deleted.filter((id) => !inserted.includes(id)).map((id) => ({ id, change: 'removed', changed_fields: [] })),
      ...[...fields]
        .filter(([id]) => !gone.has(id))
        .map(([id, names]) => ({ id, change: 'changed', changed_fields: names })),
    ].sort((a, b) => a.id - b.id);
  } finally {
    await now.close();
  }
});

afterAll(async () => {
  duck.closeSync();
  await removeDir(dir);
});

/** The rows of a diff.parquet, read by DuckDB, in file order. */
async function parquetRows(path: string): Promise<{ id: number; change: string; changed_fields: string[] }[]> {
  const rows = await query(duck, `SELECT id, change, changed_fields FROM read_parquet(${sqlString(path)})`);
  return rows.map((r) => ({
    id: Number(r['id']),
    change: r['change'] as string,
    changed_fields: r['changed_fields'] as string[],
  }));
}

function expectOneLineError(run: CliRun, code: number, message: string): void {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(`img-etl: ${message}\n`);
}

describe('img-etl diff', () => {
  it('refuses a collections file named as a side, in diff, report and files (not read as images)', async () => {
    const collections = join(first, 'collections.parquet');
    const instead = 'name the snapshot folder or its images.parquet';
    const why = `${collections} holds the collections table, not the images; ${instead}`;
    const out = join(dir, 'tables');
    expectOneLineError(await runCliHere(['diff', collections, second, '--out', out]), 2, `diff: ${why}`);
    expectOneLineError(await runCliHere(['diff', first, collections, '--out', out]), 2, `diff: ${why}`);
    expectOneLineError(await runCliHere(['report', collections, '--out', join(out, 'r.html')]), 2, `report: ${why}`);
    const files = await runCliHere(['files', collections, '--out', out, '--dry-run']);
    expectOneLineError(files, 2, `files: ${why}`);
    expect(await readdir(dir)).not.toContain('tables');
  });

  it('refuses --out without its value (exit 2), not writing into the default output/diff', async () => {
    expectOneLineError(await runCliHere(['diff', first, second, '--out']), 2, 'Not enough arguments following: out');
  });

  it(
    'finds nothing between two runs against an unchanged service (parquet-wasm against ' + 'parquetjs-lite files)',
    async () => {
      const out = join(dir, 'same');
      const run = await runCliHere(['diff', first, second, '--out', out]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.split('\n')[0]).toBe(
        `img-etl diff: ${first} -> ${second}: 0 added, 0 removed, 0 changed, ${served} unchanged`,
      );
      expect((await readdir(out)).sort()).toEqual(['collections-diff.parquet', 'diff.parquet']);
      expect(await parquetRows(join(out, 'diff.parquet'))).toEqual([]);
      expect(await parquetRows(join(out, 'collections-diff.parquet'))).toEqual([]);
      expect(run.stdout).toMatch(/\ncollections: 0 added, 0 removed, 0 changed, \d+ unchanged\n/);
    },
  );

  it('reports exactly the inserted, deleted and altered records, with the names of the changed fields', async () => {
    expect(expected.filter((e) => e.change === 'added').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.change === 'removed').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.change === 'changed').length).toBe(3);
    const out = join(dir, 'changes');
    const run = await runCliHere(['diff', first, changed, '--out', out, '--to', 'parquet', '--to', 'csv']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const files = ['collections-diff.csv', 'collections-diff.parquet', 'diff.csv', 'diff.parquet'];
    expect((await readdir(out)).sort()).toEqual(files);
    expect(await parquetRows(join(out, 'diff.parquet'))).toEqual(expected);
    const count = (change: string) => expected.filter((e) => e.change === change).length;
    const unchanged = served - count('removed') - count('changed');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      `img-etl diff: ${first} -> ${changed}: ${count('added')} added, ${count('removed')} ` +
        `removed, ${count('changed')} changed, ${unchanged} unchanged`,
    );
    expect(lines).toContain(`  old       ${join(first, 'images.parquet')}  ${served} rows`);
    expect(lines).toContain(
      '  fields    file_size 1, map_type 1, name 1, modify_date 1, is_thresholded 1, number_of_subjects 1',
    );
    expect(lines.some((l) => l.startsWith(`  parquet   ${join(out, 'diff.parquet')}  ${expected.length} rows, `))).toBe(
      true,
    );
  });

  it("gives each diff row its record's collection_id and name, a removed record's from the old side", async () => {
    const out = join(dir, 'named');
    const run = await runCliHere(['diff', first, changed, '--out', out, '--to', 'parquet,csv']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const want = expected.map((e) => ({ id: e.id, ...servedNames[e.change === 'removed' ? 0 : 1]!.get(e.id)! }));
    expect(want.filter((w) => typeof w.name === 'string' && typeof w.collection_id === 'number').length).toBe(
      want.length,
    );
    const renamed = expected.find((e) => e.changed_fields.includes('name'))!;
    expect(want.find((w) => w.id === renamed.id)!.name).toMatch(/ \(edited\)$/); // the new side's name
    const [parquet, csv] = [
      `read_parquet(${sqlString(join(out, 'diff.parquet'))})`,
      `read_csv(${sqlString(join(out, 'diff.csv'))}, header = true)`,
    ];
    for (const from of [parquet, csv]) {
      const rows = await query(duck, `SELECT id, collection_id, name FROM ${from}`);
      const got = rows.map((r) => ({
        id: Number(r['id']),
        collection_id: Number(r['collection_id']),
        name: r['name'],
      }));
      expect({ from, rows: got }).toEqual({ from, rows: want });
    }
    const [types] = await query(duck, `SELECT typeof(collection_id) AS c, typeof(name) AS n FROM ${parquet} LIMIT 1`);
    expect(types).toEqual({ c: 'BIGINT', n: 'VARCHAR' });
  });

  it('writes diff.csv alone with --to csv', async () => {
    const out = join(dir, 'csv');
    const run = await runCliHere(['diff', first, changed, '--out', out, '--to', 'csv']);
    expect(run.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['collections-diff.csv', 'diff.csv']);
    const rows = await query(
      duck,
      `SELECT id, change, changed_fields FROM read_csv(${sqlString(join(out, 'diff.csv'))}, header = true, ` +
        "columns = {'id': 'BIGINT', 'change': 'VARCHAR', 'changed_fields': 'VARCHAR', 'collection_id': 'BIGINT', " +
        "'name': 'VARCHAR'})",
    );
    expect(
      rows.map((r) => ({
        id: Number(r['id']),
        change: r['change'],
        changed_fields: r['changed_fields'] === null ? [] : (r['changed_fields'] as string).split(','),
      })),
    ).toEqual(expected);
  });

  it('reads a --snapshot folder through its latest pointer', async () => {
    const base = join(dir, 'snaps');
    await mkdir(base);
    await symlink(first, join(base, '20261120T020000Z'), 'dir');
    await symlink('20261120T020000Z', join(base, 'latest'), 'dir');
    const out = join(dir, 'latest-out');
    const run = await runCliHere(['diff', join(base, 'latest'), changed, '--out', out]);
    expect(run.code).toBe(0);
    // The side is pinned to the folder latest names when the diff starts (its real path: here the folder the
    // snapshot's own link points at), so that its images and collections are of one snapshot.
    expect(run.stdout).toContain(`  old       ${join(await realpath(first), 'images.parquet')}  ${served} rows\n`);
    expect(await parquetRows(join(out, 'diff.parquet'))).toEqual(expected);
  });

  it('fails with one line and exit code 2 for a path that holds no snapshot, and writes nothing', async () => {
    const out = join(dir, 'bad');
    const missing = join(dir, 'no-such-snapshot');
    expectOneLineError(
      await runCliHere(['diff', missing, changed, '--out', out]),
      2,
      `diff: ${missing} does not exist`,
    );
    expectOneLineError(
      await runCliHere(['diff', first, changed, '--out', out, '--to', 'arrow']),
      2,
      '--to: unknown diff format "arrow"; choose from parquet, csv',
    );
    const usage = await runCliHere(['diff', first]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('img-etl: missing <new> (img-etl diff <old> <new>; see img-etl diff --help)\n');
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it('fails with one line and exit code 1 for a snapshot file that cannot be read', async () => {
    const broken = join(dir, 'broken');
    await mkdir(broken);
    await copyFile(join(first, 'images.parquet'), join(broken, 'images.parquet'));
    await truncate(join(broken, 'images.parquet'), 100);
    const run = await runCliHere(['diff', broken, changed, '--out', join(dir, 'broken-out')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith(`img-etl: diff: cannot read ${join(broken, 'images.parquet')}: `)).toBe(true);
    expect(run.stderr.trimEnd()).not.toContain('\n');
  });
});

describe('img-etl diff of the collections', () => {
  /** Collections 1, 2, 3; then 1 deleted, 2 renamed (and so modified), 4 added. */
  const before = [
    '{"id":1,"name":"One","modify_date":"2020-01-01T10:00:00+01:00"}',
    '{"id":2,"name":"Two","owner":5,"modify_date":"2020-01-01T10:00:00+01:00"}',
    '{"id":3,"name":"Three","modify_date":"2020-01-01T10:00:00+01:00"}',
  ];
  const after = [
    '{"id":2,"name":"Two, renamed","owner":5,"modify_date":"2021-02-03T10:00:00.500000+01:00"}',
    before[2]!,
    '{"id":4,"name":"Four","modify_date":"2021-02-03T10:00:00+01:00"}',
  ];
  const images = [1, 2].map((id) => JSON.stringify({ ...fixtureRecords[id]!, id, collection_id: 2 }));
  let collections: string[] | undefined = before;

  /** A snapshot, as parquet or arrow, of a scripted service listing the same images and `collections` (404: none). */
  async function collectionsSnapshot(name: string, format: string, listed: string[] | undefined): Promise<string> {
    collections = listed;
    const server = await startScriptedServer((req, res, origin) => {
      const path = new URL(req.url ?? '/', origin).pathname;
      const records = path === '/api/images/' ? images : path === '/api/collections/' ? collections : undefined;
      const body =
        records === undefined
          ? '{"detail":"Not found."}'
          : `{"count":${records.length},"next":null,"previous":null,"results":[${records.join(',')}]}`;
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
      res.writeHead(records === undefined ? 404 : 200, headers);
      res.end(body);
    });
    try {
      const out = join(dir, name);
      const run = await runCliHere(['--base-url', server.origin, '--out', out, '--to', format, '--quiet']);
      expect([run.code, run.stderr]).toEqual([0, '']);
      return out;
    } finally {
      await server.close();
    }
  }

  it('reports the collections added, removed and changed, with their changed fields, in collections-diff', async () => {
    const old = await collectionsSnapshot('collections-old', 'parquet', before);
    const now = await collectionsSnapshot('collections-new', 'arrow', after);
    const out = join(dir, 'collections-diff');
    const run = await runCliHere(['diff', old, now, '--out', out, '--to', 'parquet,csv']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const want = [
      { id: 1, change: 'removed', changed_fields: [] },
      { id: 2, change: 'changed', changed_fields: ['name', 'modify_date'] },
      { id: 4, change: 'added', changed_fields: [] },
    ];
    expect(await parquetRows(join(out, 'collections-diff.parquet'))).toEqual(want);
    // Each row names its collection: the new side's name, a removed one's old name.
    const names = ['One', 'Two, renamed', 'Four'];
    const parquetNames = await query(
      duck,
      `SELECT name FROM read_parquet(${sqlString(join(out, 'collections-diff.parquet'))})`,
    );
    expect(parquetNames.map((r) => r['name'])).toEqual(names);
    const csvPath = sqlString(join(out, 'collections-diff.csv'));
    const csv = await query(duck, `SELECT * FROM read_csv(${csvPath}, header = true, all_varchar = true)`);
    const fields = (e: (typeof want)[number]) => e.changed_fields.join(',') || null;
    expect(csv).toEqual(
      want.map((e, k) => ({ id: String(e.id), change: e.change, changed_fields: fields(e), name: names[k] })),
    );
    expect(await parquetRows(join(out, 'diff.parquet'))).toEqual([]);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`img-etl diff: ${old} -> ${now}: 0 added, 0 removed, 0 changed, 2 unchanged`);
    const at = lines.indexOf('collections: 1 added, 1 removed, 1 changed, 1 unchanged');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      `  old       ${join(old, 'collections.parquet')}  3 rows`,
      `  new       ${join(now, 'collections.arrow')}  3 rows`,
      '  fields    name 1, modify_date 1',
    ]);
    const parquetLine = `  parquet   ${join(out, 'collections-diff.parquet')}  3 rows, `;
    expect(lines.some((l) => l.startsWith(parquetLine))).toBe(true);
  });

  it('says why it did not compare the collections when a snapshot has none, and diffs the images', async () => {
    const old = await collectionsSnapshot('collections-none', 'parquet', undefined);
    const now = await collectionsSnapshot('collections-some', 'parquet', after);
    const out = join(dir, 'collections-none-diff');
    const run = await runCliHere(['diff', old, now, '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const why = `${old} holds no collections.parquet or collections.arrow`;
    expect(run.stdout.split('\n')).toContain(`collections: not compared: ${why}`);
    expect(await readdir(out)).toEqual(['diff.parquet']);
  });
});
