/**
 * `img-etl diff` end to end: snapshots taken by the real CLI from the bundled service over loopback HTTP, diffed by
 * the real CLI, the diff files read back by DuckDB.
 */
import { copyFile, mkdir, readdir, symlink, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Random, startService, type RunningService } from '../../src/service/index.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';

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

async function snapshot(service: RunningService, out: string, ...extra: string[]): Promise<string> {
  const run = await runCli(['--base-url', service.url, '--out', out, '--page-size', '100', '--quiet', ...extra]);
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
  touched['modify_date'] = String(touched['modify_date']).replace(/(\d)([+-]\d{2}:\d{2})$/, (_, d: string, zone: string) => `${(Number(d) + 1) % 10}${zone}`); // one microsecond
  fields.set(touched['id'] as number, ['modify_date']);
  const recast = pick((r) => typeof r['map_type'] === 'string' && typeof r['is_thresholded'] === 'boolean' && r['number_of_subjects'] === null);
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
  const lines = fixtureLines().map((line, i) => (alteredIds.has(records[i]!['id']) ? JSON.stringify(records[i]) : line));
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
    const gone = new Set(deleted);
    expected = [
      ...inserted.filter((id) => !gone.has(id)).map((id) => ({ id, change: 'added', changed_fields: [] })),
      ...deleted.filter((id) => !inserted.includes(id)).map((id) => ({ id, change: 'removed', changed_fields: [] })),
      ...[...fields].filter(([id]) => !gone.has(id)).map(([id, names]) => ({ id, change: 'changed', changed_fields: names })),
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
  return rows.map((r) => ({ id: Number(r['id']), change: r['change'] as string, changed_fields: r['changed_fields'] as string[] }));
}

function expectOneLineError(run: CliRun, code: number, message: string): void {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(`img-etl: ${message}\n`);
}

describe('img-etl diff', () => {
  it('finds nothing between two runs against an unchanged service (parquet-wasm against ' + 'parquetjs-lite files)', async () => {
    const out = join(dir, 'same');
    const run = await runCli(['diff', first, second, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`img-etl diff: ${first} -> ${second}: 0 added, 0 removed, 0 changed, ${served} unchanged`);
    expect(await readdir(out)).toEqual(['diff.parquet']);
    expect(await parquetRows(join(out, 'diff.parquet'))).toEqual([]);
  });

  it('reports exactly the inserted, deleted and altered records, with the names of the changed fields', async () => {
    expect(expected.filter((e) => e.change === 'added').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.change === 'removed').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.change === 'changed').length).toBe(3);
    const out = join(dir, 'changes');
    const run = await runCli(['diff', first, changed, '--out', out, '--to', 'parquet', '--to', 'csv']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['diff.csv', 'diff.parquet']);
    expect(await parquetRows(join(out, 'diff.parquet'))).toEqual(expected);
    const count = (change: string) => expected.filter((e) => e.change === change).length;
    const unchanged = served - count('removed') - count('changed');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`img-etl diff: ${first} -> ${changed}: ${count('added')} added, ${count('removed')} ` + `removed, ${count('changed')} changed, ${unchanged} unchanged`);
    expect(lines).toContain(`  old       ${join(first, 'images.parquet')}  ${served} rows`);
    expect(lines).toContain('  fields    file_size 1, map_type 1, name 1, modify_date 1, is_thresholded 1, number_of_subjects 1');
    expect(lines.some((l) => l.startsWith(`  parquet   ${join(out, 'diff.parquet')}  ${expected.length} rows, `))).toBe(true);
  });

  it('writes diff.csv alone with --to csv', async () => {
    const out = join(dir, 'csv');
    const run = await runCli(['diff', first, changed, '--out', out, '--to', 'csv']);
    expect(run.code).toBe(0);
    expect(await readdir(out)).toEqual(['diff.csv']);
    const rows = await query(duck, `SELECT id, change, changed_fields FROM read_csv(${sqlString(join(out, 'diff.csv'))}, ` + `header = true, columns = {'id': 'BIGINT', 'change': 'VARCHAR', 'changed_fields': ` + `'VARCHAR'})`);
    expect(rows.map((r) => ({ id: Number(r['id']), change: r['change'], changed_fields: r['changed_fields'] === null ? [] : (r['changed_fields'] as string).split(',') }))).toEqual(expected);
  });

  it('reads a --snapshot folder through its latest pointer', async () => {
    const base = join(dir, 'snaps');
    await mkdir(base);
    await symlink(first, join(base, '20261120T020000Z'), 'dir');
    await symlink('20261120T020000Z', join(base, 'latest'), 'dir');
    const out = join(dir, 'latest-out');
    const run = await runCli(['diff', join(base, 'latest'), changed, '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`  old       ${join(base, 'latest', 'images.parquet')}  ${served} rows\n`);
    expect(await parquetRows(join(out, 'diff.parquet'))).toEqual(expected);
  });

  it('fails with one line and exit code 2 for a path that holds no snapshot, and writes nothing', async () => {
    const out = join(dir, 'bad');
    const missing = join(dir, 'no-such-snapshot');
    expectOneLineError(await runCli(['diff', missing, changed, '--out', out]), 2, `diff: ${missing} does not exist`);
    expectOneLineError(await runCli(['diff', first, changed, '--out', out, '--to', 'arrow']), 2, '--to: unknown diff format "arrow"; choose from parquet, csv');
    const usage = await runCli(['diff', first]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/Not enough non-option arguments/);
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it('fails with one line and exit code 1 for a snapshot file that cannot be read', async () => {
    const broken = join(dir, 'broken');
    await mkdir(broken);
    await copyFile(join(first, 'images.parquet'), join(broken, 'images.parquet'));
    await truncate(join(broken, 'images.parquet'), 100);
    const run = await runCli(['diff', broken, changed, '--out', join(dir, 'broken-out')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith(`img-etl: diff: cannot read ${join(broken, 'images.parquet')}: `)).toBe(true);
    expect(run.stderr.trimEnd()).not.toContain('\n');
  });
});
