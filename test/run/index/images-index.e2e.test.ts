/**
 * The snapshot index (images.index) and the drift it makes cheap: every `--snapshot` folder holds the ids of
 * its images in file order and a hash of each row's values; between two snapshots the hashes differ exactly where
 * DuckDB finds a value that differs, and the drift, by the index or by the full diff when the older snapshot has no
 * index, equals DuckDB's join of the two snapshots.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../../src/report/report-data.js';
import { COLUMNS } from '../../../src/schema/columns.js';
import { expectedDrift } from '../../helpers/report-expected.js';
import { makeReportSnapshots, type ReportSnapshots } from '../../helpers/report-snapshots.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

let dir: string;
let db: DuckDBConnection;
/** Two snapshots a few records apart (3 edited, 1 deleted, 1 inserted), Parquet only. */
let few: ReportSnapshots;
/** The same, the older snapshot's index deleted before the second run: as an earlier version wrote it. */
let noIndex: ReportSnapshots;

const readJson = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;
const changes = { edits: 3, deletes: 1, inserts: 1, to: 'parquet' };

beforeAll(async () => {
  dir = await tempDir();
  few = await makeReportSnapshots(join(dir, 'few'), 1500, changes);
  const between = (first: string) => rm(join(first, 'images.index'));
  noIndex = await makeReportSnapshots(join(dir, 'no-index'), 1500, { ...changes, between });
  db = await openDuckDB();
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

/** An index file read by the test itself: its header, and each row's id and hash (as hex). */
async function readIndex(folder: string) {
  const bytes = await readFile(join(folder, 'images.index'));
  expect(bytes.toString('latin1', 0, 8)).toBe('IMGETLIX');
  const length = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString('utf8', 12, 12 + length)) as Record<string, unknown>;
  const start = Math.ceil((12 + length) / 8) * 8;
  const rows = (bytes.length - start) / 16; // 16 bytes a row: its id, its hash
  expect(Number.isInteger(rows)).toBe(true);
  const ids: number[] = [];
  const hashes = new Map<number, string>();
  for (let r = 0; r < rows; r++) {
    const id = Number(bytes.readBigInt64LE(start + 16 * r));
    ids.push(id);
    hashes.set(id, bytes.readBigUInt64LE(start + 16 * r + 8).toString(16));
  }
  return { header, ids, hashes };
}

/** The ids of a Parquet file in file order, as DuckDB reads them. */
async function parquetIds(path: string): Promise<number[]> {
  const sql = `SELECT id FROM read_parquet(${sqlString(path)}, file_row_number = true) ORDER BY file_row_number`;
  return (await query(db, sql)).map((r) => Number(r['id']));
}

describe('images.index', () => {
  it('holds the ids of images.parquet in file order, one hash each, and is in the manifest', async () => {
    for (const folder of few.folders) {
      const { header, ids, hashes } = await readIndex(folder);
      expect(ids).toEqual(await parquetIds(join(folder, 'images.parquet')));
      expect(header).toEqual({ hash: 'img-etl-row-hash-1', schema_version: '1' });
      expect(new Set(hashes.values()).size).toBe(ids.length); // rows of different records never hash alike here
      const manifest = await readJson<{ files: { name: string; format: string; rows: number }[] }>(
        join(folder, 'manifest.json'),
      );
      expect(manifest.files).toContainEqual(expect.objectContaining({ name: 'images.index', format: 'index' }));
      expect(manifest.files.find((f) => f.name === 'images.index')!.rows).toBe(ids.length);
    }
  });

  it('has different hashes for a record in both snapshots just where DuckDB finds a value that differs', async () => {
    const [older, newer] = await Promise.all(few.folders.map(readIndex));
    const [o, w] = few.folders.map((f) => `read_parquet(${sqlString(join(f, 'images.parquet'))})`);
    const differs = COLUMNS.map((c) => `o."${c.name}" IS DISTINCT FROM w."${c.name}"`).join(' OR ');
    const sql = `SELECT o.id FROM ${o!} AS o JOIN ${w!} AS w ON o.id = w.id WHERE ${differs} ORDER BY o.id`;
    const changed = (await query(db, sql)).map((r) => Number(r['id']));
    expect(changed.length).toBeGreaterThanOrEqual(3);
    const hashedApart = [...newer!.hashes]
      .filter(([id, hash]) => older!.hashes.has(id) && older!.hashes.get(id) !== hash)
      .map(([id]) => id);
    expect(hashedApart).toEqual(changed);
  });
});

describe('the drift', () => {
  it('by the index, when a few records changed, equals DuckDB’s join of the two snapshots', async () => {
    const report = await readJson<ReportData>(join(few.folders[1]!, 'report.json'));
    const [older, newer] = few.folders.map((f) => join(f, 'images.parquet'));
    const want = await expectedDrift(db, older!, newer!);
    expect(want).toMatchObject({ added: 1, removed: 1 });
    const fields = [...want.fields].sort((a, b) => b.count - a.count);
    expect({ ...report.drift, against: undefined }).toEqual({ ...want, against: undefined, fields });
    expect(report.drift!.against).toBe(few.folders[0]!);
    expect(report.drift_note).toBeNull();
  });

  it('against an older snapshot without an index is the full diff, equal to DuckDB’s join too', async () => {
    const report = await readJson<ReportData>(join(noIndex.folders[1]!, 'report.json'));
    const [older, newer] = noIndex.folders.map((f) => join(f, 'images.parquet'));
    const want = await expectedDrift(db, older!, newer!);
    const fields = [...want.fields].sort((a, b) => b.count - a.count);
    expect({ ...report.drift, against: undefined }).toEqual({ ...want, against: undefined, fields });
    expect(report.drift_note).toBeNull();
  });

  it('of img-etl report --against is the same by the index as by the full diff', async () => {
    const out = (name: string) => join(dir, 'out', `${name}.html`);
    const byIndex = await runCliHere(['report', few.folders[1]!, '--against', few.folders[0]!, '--out', out('index')]);
    expect([byIndex.code, byIndex.stderr]).toEqual([0, '']);
    await rm(join(few.folders[0]!, 'images.index'));
    const byDiff = await runCliHere(['report', few.folders[1]!, '--against', few.folders[0]!, '--out', out('diff')]);
    expect([byDiff.code, byDiff.stderr]).toEqual([0, '']);
    const [a, b] = await Promise.all(['index', 'diff'].map((n) => readJson<ReportData>(join(dir, 'out', `${n}.json`))));
    expect(a!.drift).toEqual(b!.drift);
    const run = await readJson<ReportData>(join(few.folders[1]!, 'report.json'));
    expect({ ...a!.drift, against: '' }).toEqual({ ...run.drift, against: '' });
  });
});
