/**
 * Every output read by the readers people use: pyarrow, pandas 3 with pyarrow, Debian's pandas 1.5
 * without it, polars and DuckDB's Python package read the images, the collections and the files tables from Parquet,
 * Arrow IPC and CSV, and every value equals what the service served. pandas reads the snapshots through their load.py
 * (whichever file the folder has, with the exact dtypes), DuckDB's CSV through load.sql. The images span two record
 * batches with category values first seen in the second, so that the Arrow files hold grown dictionaries. The readers
 * run in test/helpers/read-outputs.py; the Python packages come from the test set-up (test/setup/test-tools.json).
 */
import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../src/schema/collection-columns.js';
import { COLUMNS } from '../../src/schema/columns.js';
import type { RunningService } from '../../src/service/index.js';
import { allPages } from '../service/http.js';
import { expectedCollectionRow } from '../helpers/expected-collection-row.js';
import { type Expected } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { landingPath, type Rec, servedBytes, sha256 } from '../helpers/files-run.js';
import { expectedRowsOf } from '../helpers/read-snapshot.js';
import { PANDAS_DTYPES, removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';
import { DEBIAN_PYTHON, missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

const READ_OUTPUTS = fileURLToPath(new URL('../helpers/read-outputs.py', import.meta.url));

/** A value as read-outputs.py compares it: integers and timestamps as decimal text, negative zero as "-0". */
type Canonical = string | number | boolean | null;
type Kinds = Record<string, string>;

/** The tables read: the two of a snapshot, the files table, and load.py's join of the two. */
type TableName = 'images' | 'collections' | 'files' | 'join';

/** One read: a Python, a reader, a format, a file (or snapshot folder), and the expected rows it must give. */
interface Job {
  name: string;
  python: 'venv' | 'debian';
  reader: 'pyarrow' | 'polars' | 'duckdb' | 'pandas' | 'load.py' | 'load.py join';
  format: 'parquet' | 'arrow' | 'csv' | 'auto' | 'load.sql';
  path: string;
  table: TableName;
  /** The columns compared, and each one's kind. */
  kinds: Kinds;
  /** The columns naming a row. */
  key: string[];
  /** The name of its expected rows: the table's, as CSV holds them when it reads CSV. */
  expected: string;
}

interface Outcome {
  rows?: number;
  differences?: string[];
  types?: Record<string, string>;
  error?: string;
}

const IMAGE_KINDS: Kinds = Object.fromEntries(COLUMNS.map((c) => [c.name, c.type.kind]));
const COLLECTION_KINDS: Kinds = Object.fromEntries(COLLECTIONS.columns.map((c) => [c.name, c.type.kind]));
const FILE_KINDS: Kinds = {
  id: 'int64',
  collection_id: 'int64',
  link: 'string',
  url: 'string',
  path: 'string',
  bytes: 'int64',
  sha256: 'string',
  mtime_ns: 'int64',
  status: 'string',
  reason: 'string',
};
/** The join: an image's id with columns its collection gave it (named so when the image has none of its own). */
const JOIN_KINDS: Kinds = { id: 'int64', owner_name: 'string', DOI: 'string', add_date_collection: 'timestamp' };
const TABLES: Record<TableName, { kinds: Kinds; key: string[] }> = {
  images: { kinds: IMAGE_KINDS, key: ['id'] },
  collections: { kinds: COLLECTION_KINDS, key: ['id'] },
  files: { kinds: FILE_KINDS, key: ['id', 'link'] },
  join: { kinds: JOIN_KINDS, key: ['id'] },
};
const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/**
 * What a CSV field holds for a text value: img-etl puts a `'` before one a spreadsheet would run as a formula
 * (`=`, `+`, `-`, `@`, tab, CR or their full-width forms), and readers read that text as it stands.
 */
function asCsvText(value: Canonical, kind: string): Canonical {
  const text = kind === 'string' || kind === 'category' || kind === 'json';
  return text && typeof value === 'string' && /^[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/.test(value) ? `'${value}` : value;
}

function canonical(value: Expected | undefined): Canonical {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return String(value);
  return Object.is(value, -0) ? '-0' : value;
}

/** Rows keyed as read-outputs.py keys them, values in the order of `kinds`, as CSV holds them when `csv`. */
function keyed(rows: Record<string, Expected>[], kinds: Kinds, key: string[], csv = false) {
  const entries = rows.map((row) => {
    const values = Object.entries(kinds).map(([c, kind]) => {
      const value = canonical(row[c]);
      return csv ? asCsvText(value, kind) : value;
    });
    return [key.map((k) => String(row[k])).join('/'), values] as const;
  });
  return Object.fromEntries(entries);
}

let service: RunningService;
let root: string;
let unavailable: string | undefined;
let outcomes: Record<string, Outcome> = {};
let jobs: Job[] = [];

/** The folders read: a snapshot of every format, one of CSV alone, and a files run's --out. */
interface Folders {
  all: string;
  csv: string;
  files: string;
}

/** Every read: each reader on each file of each table, load.py on both snapshots with both pandas. */
function plan({ all, csv, files }: Folders): Job[] {
  const planned: Job[] = [];
  const read = (
    python: Job['python'],
    reader: Job['reader'],
    format: Job['format'],
    path: string,
    table: TableName,
  ) => {
    const inCsv = path.startsWith(csv);
    const readsCsv = format === 'csv' || inCsv || python === 'debian'; // Debian's pandas: no pyarrow
    const where = format === 'auto' || format === 'load.sql' ? (inCsv ? ' of the --to csv snapshot' : '') : '';
    const name = `${python === 'debian' ? 'pandas 1.5 ' : ''}${reader} ${format} ${table}${where}`;
    const expected = table === 'files' ? 'files' : `${table}:${readsCsv ? 'csv' : 'binary'}`;
    planned.push({ name, python, reader, format, path, table, ...TABLES[table], expected });
  };
  for (const table of ['images', 'collections'] as const) {
    for (const format of FORMATS) {
      const file = join(all, `${table}.${format}`);
      for (const reader of ['pyarrow', 'polars'] as const) read('venv', reader, format, file, table);
      if (format !== 'csv') read('venv', 'duckdb', format, file, table);
      read('venv', 'load.py', format, all, table); // load.py's reader of that format
    }
    read('venv', 'duckdb', 'load.sql', csv, table); // DuckDB reads the CSV through load.sql
    for (const python of ['venv', 'debian'] as const) {
      for (const folder of [all, csv]) read(python, 'load.py', 'auto', folder, table); // whichever file it picks
    }
  }
  for (const folder of [all, csv]) read('venv', 'load.py join', 'auto', folder, 'join');
  read('debian', 'load.py join', 'auto', csv, 'join');
  for (const format of FORMATS) {
    const file = join(files, `files.${format}`);
    for (const reader of ['pyarrow', 'polars', 'duckdb', 'pandas'] as const)
      read('venv', reader, format, file, 'files');
  }
  read('debian', 'pandas', 'csv', join(files, 'files.csv'), 'files');
  return planned;
}

/** Runs the jobs with their Python, their expected rows beside them; the outcomes by job name. */
function readAll(planned: Job[], expected: Record<string, unknown>): Record<string, Outcome> {
  const results: Record<string, Outcome> = {};
  for (const [python, path] of [
    ['venv', VENV_PYTHON],
    ['debian', DEBIAN_PYTHON],
  ] as const) {
    const batch = planned.filter((j) => j.python === python);
    const wanted = Object.fromEntries([...new Set(batch.map((j) => j.expected))].map((e) => [e, expected[e]]));
    const input = JSON.stringify({ jobs: batch, expected: wanted });
    const output = execFileSync(path, ['-s', READ_OUTPUTS], { input, encoding: 'utf8', maxBuffer: 256 << 20 });
    Object.assign(results, JSON.parse(output) as Record<string, Outcome>);
  }
  return results;
}

/** The rows each table must hold: the images and collections as served, the files as served and landed. */
async function expectedRows(picked: Rec[], out: string): Promise<Record<string, unknown>> {
  const images = [
    ...expectedRowsOf(
      service,
      [...service.servedRecords()].map((r) => r['id'] as number),
    ).values(),
  ];
  const served = (await allPages(`${service.url}/api/collections/?limit=1000`)).flatMap((p) => p.results);
  const collections = new Map(served.map((r) => [Number(r['id']), expectedCollectionRow(r)]));
  const joined = images.map((image) => {
    const collection = collections.get(Number(image['collection_id']));
    const [owner_name, DOI, add_date_collection] = ['owner_name', 'DOI', 'add_date'].map(
      (c) => collection?.[c] ?? null,
    );
    return { id: image['id']!, owner_name, DOI, add_date_collection } as Record<string, Expected>;
  });
  const files: Record<string, Expected>[] = [];
  for (const record of picked) {
    const bytes = await servedBytes(record['file'] as string);
    const path = landingPath(record);
    const { mtimeNs } = await stat(join(out, path), { bigint: true });
    const row = { id: BigInt(record['id'] as number), collection_id: BigInt(record['collection_id'] as number) };
    const file = { link: 'file', url: record['file'] as string, path, bytes: BigInt(bytes.length) };
    files.push({ ...row, ...file, sha256: sha256(bytes), mtime_ns: mtimeNs, status: 'ok', reason: null });
  }
  const both = (name: TableName, rows: Record<string, Expected>[]) => ({
    [`${name}:binary`]: keyed(rows, TABLES[name].kinds, TABLES[name].key),
    [`${name}:csv`]: keyed(rows, TABLES[name].kinds, TABLES[name].key, true),
  });
  return {
    ...both('images', images),
    ...both('collections', [...collections.values()]),
    ...both('join', joined),
    files: keyed(files, FILE_KINDS, TABLES.files.key),
  };
}

beforeAll(async () => {
  unavailable = missingTools(['venv', 'python3-pandas']);
  if (unavailable !== undefined) return;
  service = await startFixtureService({ records: 1_200, seed: 26 }); // two record batches of the write
  root = await tempDir();
  const snapshot = async (out: string, to: string) => {
    const run = await runCliHere(['--base-url', service.url, '--out', out, '--snapshot', '--to', to, '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    return join(out, 'latest');
  };
  const folders = {
    all: await snapshot(join(root, 'all'), 'parquet,arrow,csv'),
    csv: await snapshot(join(root, 'csv'), 'csv'),
    files: join(root, 'files'),
  };
  // A few files, the table written in every format.
  const picked = [...service.servedRecords()].filter((r) => (r['file_size'] as number) > 0).slice(0, 6);
  const where = ['--where', `id in (${picked.map((r) => String(r['id'])).join(', ')})`];
  const args = ['files', folders.all, '--out', folders.files, '--to', 'parquet,arrow,csv', '--quiet', ...where];
  const files = await runCliHere(args);
  expect(files.code, files.stderr).toBe(0);
  jobs = plan(folders);
  outcomes = readAll(jobs, await expectedRows(picked, folders.files));
}, 600_000);

afterAll(async () => {
  await service?.close();
  if (root !== undefined) await removeDir(root);
});

describe('every output, read by pyarrow, pandas (1.5 and 3), polars and DuckDB (Python)', () => {
  it('every reader reads every file of every table, each value as served', (ctx) => {
    if (unavailable !== undefined) ctx.skip(unavailable);
    expect(jobs).toHaveLength(48);
    const failed = jobs.flatMap((job) => {
      const outcome = outcomes[job.name];
      if (outcome === undefined) return [`${job.name}: no outcome`];
      if (outcome.error !== undefined) return [`${job.name}: ${outcome.error}`];
      return (outcome.differences ?? []).map((d) => `${job.name}: ${d}`);
    });
    expect(failed).toEqual([]);
  });

  it('the Arrow files that polars read hold dictionaries grown across record batches (once deltas)', (ctx) => {
    if (unavailable !== undefined) ctx.skip(unavailable);
    const facts = outcomes['pyarrow arrow images']!.types!;
    expect(Number(facts['(record batches)'])).toBeGreaterThan(1);
    expect(facts['(grown dictionaries)']).not.toBe('');
  });

  it("load.py gives each column its type's exact dtype, from whichever file it read", (ctx) => {
    if (unavailable !== undefined) ctx.skip(unavailable);
    const loaders = jobs.filter((j) => j.reader === 'load.py');
    expect(loaders).toHaveLength(14); // pandas 3: each format and both snapshots; pandas 1.5: both snapshots
    for (const job of loaders) {
      const old = job.python === 'debian'; // pandas 1.5: nanoseconds, its only unit
      const stamp = old ? 'datetime64[ns, UTC]' : 'datetime64[us, UTC]';
      const want = Object.fromEntries(
        Object.entries(job.kinds).map(([c, kind]) => [c, kind === 'timestamp' ? stamp : PANDAS_DTYPES[kind]]),
      );
      const { source, ...dtypes } = outcomes[job.name]!.types!;
      expect({ job: job.name, dtypes }).toEqual({ job: job.name, dtypes: want });
      // the format asked, else Parquet where pandas has pyarrow and the snapshot has it, else CSV
      const csv = old || job.expected.endsWith(':csv');
      const format = job.format !== 'auto' ? job.format : csv ? 'csv' : 'parquet';
      expect({ job: job.name, source }).toEqual({ job: job.name, source: `${job.table}.${format}` });
    }
  });
});
