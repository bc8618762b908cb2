/**
 * `img-etl files --to`: the files table in the formats asked, as a snapshot's (parquet, arrow, csv;
 * default parquet), each read back by an independent reader (DuckDB for Parquet and CSV, apache-arrow for Arrow IPC)
 * and equal to what was served and landed: the id and collection, the link and URL, the path relative to --out, the
 * bytes and SHA-256 of the served file, its mtime on disk, status ok. A rerun reads files.arrow as it reads
 * files.parquet.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { arrowValues } from '../helpers/arrow-values.js';
import {
  fileSizeWithin,
  landingPath,
  type Rec,
  servedBytes,
  sha256,
  startSnapshottedService,
  whereIds,
} from '../helpers/files-run.js';
import { listDir, openDuckDB, query, removeDir, sqlString } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let chosen: Rec[];
/** What each row must hold, by id, every value as text (null as null). */
let expected: Map<string, Record<string, string | null>>;

const COLUMNS = ['id', 'collection_id', 'link', 'url', 'path', 'bytes', 'sha256', 'mtime_ns', 'status', 'reason'];

beforeAll(async () => {
  let records: Rec[];
  ({ service, root, snap, records } = await startSnapshottedService({ records: 200, seed: 26 }));
  chosen = records.filter(fileSizeWithin(1, 300_000)).slice(0, 5);
  expect(chosen).toHaveLength(5);
}, 120_000);

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

/** The rows every table of `out` must hold: from the served files and the files on disk. */
async function expectedRows(out: string): Promise<Map<string, Record<string, string | null>>> {
  const rows = new Map<string, Record<string, string | null>>();
  for (const record of chosen) {
    const bytes = await servedBytes(record['file'] as string);
    const path = landingPath(record);
    const { mtimeNs } = await stat(join(out, path), { bigint: true });
    const [id, collection] = [String(record['id']), String(record['collection_id'])];
    const file = { link: 'file', url: record['file'] as string, path, bytes: String(bytes.length) };
    const done = { sha256: sha256(bytes), mtime_ns: String(mtimeNs), status: 'ok', reason: null };
    rows.set(id, { id, collection_id: collection, ...file, ...done });
  }
  return rows;
}

/** Every row of a table as text by id, read by DuckDB (Parquet, CSV with every column as text) or apache-arrow. */
async function readTable(path: string): Promise<Map<string, Record<string, string | null>>> {
  let rows: Record<string, unknown>[];
  if (path.endsWith('.arrow')) {
    const table = tableFromIPC(await readFile(path));
    const columns = Object.fromEntries(COLUMNS.map((c) => [c, arrowValues(table.getChild(c)!)]));
    rows = Array.from({ length: table.numRows }, (_, i) => Object.fromEntries(COLUMNS.map((c) => [c, columns[c]![i]])));
  } else {
    const db = await openDuckDB();
    const source = path.endsWith('.csv')
      ? `read_csv(${sqlString(path)}, header = true, all_varchar = true, nullstr = '')`
      : `read_parquet(${sqlString(path)})`;
    rows = await query(db, `SELECT ${COLUMNS.map((c) => `"${c}"::VARCHAR AS "${c}"`).join(', ')} FROM ${source}`);
  }
  const text = (v: unknown) => (v === null || v === undefined ? null : (v as string | number | bigint).toString());
  return new Map(rows.map((r) => [text(r['id'])!, Object.fromEntries(COLUMNS.map((c) => [c, text(r[c])]))]));
}

const files = (out: string, ...more: string[]) =>
  runCliHere(['files', snap, '--out', out, ...whereIds(chosen), '--summary', 'json', '--quiet', ...more]);

describe('img-etl files --to', () => {
  it('writes the table in every format asked, each read back equal to what was served and landed', async () => {
    const out = join(root, 'all');
    const run = await files(out, '--to', 'parquet,arrow,csv');
    expect(run.code, run.stderr).toBe(0);
    const tables = ['files.arrow', 'files.csv', 'files.parquet'];
    expect((await listDir(out)).filter((n) => n.startsWith('files.'))).toEqual(tables);
    expected = await expectedRows(out);
    for (const name of tables)
      expect({ name, rows: await readTable(join(out, name)) }).toEqual({ name, rows: expected });
    // the summary names each table written
    const summary = JSON.parse(run.stdout) as { files_tables: { path: string; rows: number }[] };
    const written = summary.files_tables.map((t) => [t.path, t.rows]);
    expect(written).toEqual(['files.parquet', 'files.arrow', 'files.csv'].map((n) => [join(out, n), 5]));
  });

  it('writes files.parquet alone by default, and only the formats asked otherwise', async () => {
    const plain = join(root, 'default');
    expect((await files(plain)).code).toBe(0);
    expect((await listDir(plain)).filter((n) => n.startsWith('files.'))).toEqual(['files.parquet']);
    const csv = join(root, 'csv');
    expect((await files(csv, '--to', 'csv')).code).toBe(0);
    expect((await listDir(csv)).filter((n) => n.startsWith('files.'))).toEqual(['files.csv']);
    expect(await readTable(join(csv, 'files.csv'))).toEqual(await expectedRows(csv));
  });

  it('a rerun reads files.arrow when that is the table: a file it vouched for, since changed, is fetched', async () => {
    const out = join(root, 'arrow');
    expect((await files(out, '--to', 'arrow')).code).toBe(0);
    // Changed on disk since: re-hashed against the table's SHA-256 and fetched again. Without the table it would be a
    // file img-etl did not put there (it no longer verifies), left alone.
    const changed = join(out, landingPath(chosen[0]!));
    await writeFile(changed, Buffer.alloc((await stat(changed)).size));
    const before = service.stats.files.requests;
    const again = await files(out, '--to', 'arrow');
    expect(again.code, again.stderr).toBe(0);
    expect(service.stats.files.requests - before).toBe(1);
    const summary = JSON.parse(again.stdout) as { kept: number; counts: { ok: number } };
    expect([summary.kept, summary.counts.ok]).toEqual([4, 5]);
    expect(await readTable(join(out, 'files.arrow'))).toEqual(await expectedRows(out));
  });

  it('refuses an unknown format before fetching anything', async () => {
    const before = service.stats.files.requests;
    const run = await files(join(root, 'bad'), '--to', 'xlsx');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--to: unknown format "xlsx"; choose from parquet, arrow, csv/);
    expect(service.stats.files.requests).toBe(before);
  });
});
