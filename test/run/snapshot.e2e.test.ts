/**
 * The main job end to end: the real CLI against the bundled service over loopback HTTP, every output
 * read back by an independent reader (DuckDB, apache-arrow) and compared value by value with what was served.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DataType, Precision, tableFromIPC, TimeUnit } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS, type ColumnKind } from '../../src/schema/columns.js';
import type { RunningService } from '../../src/service/index.js';
import { arrowValues } from '../helpers/arrow-values.js';
import { epochMicros, expectedRow, expectRowsMatch, isoMicros, type Expected } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { readManifest } from '../helpers/read-manifest.js';

const DUCKDB_TYPE: Record<ColumnKind, string> = {
  int64: 'BIGINT',
  float64: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  string: 'VARCHAR',
  category: 'VARCHAR',
  json: 'VARCHAR',
};

let service: RunningService;
let out: string;
let run: CliRun;
let served: Record<string, unknown>[];
let expected: Map<bigint, Record<string, Expected>>;

beforeAll(async () => {
  service = await startFixtureService({ records: 700, seed: 24 });
  served = [...service.servedRecords()];
  expected = new Map(served.map((r) => [BigInt(r['id'] as number), expectedRow(r)]));
  out = await tempDir();
  // A child process: its stderr is the program's whole stderr, node's own stack traces and warnings included (in the
  // test's process they would go to the worker's stderr, not to run.stderr, and the first test's check would be empty).
  run = await runCli([
    '--base-url',
    service.url,
    '--to',
    'parquet',
    '--to',
    'arrow,csv',
    '--out',
    out,
    '--concurrency',
    '3',
    '--page-size',
    '50',
  ]);
});

afterAll(async () => {
  await service?.close();
  await removeDir(out);
});

const expectRows = (rows: Record<string, unknown>[], convert?: (kind: ColumnKind, value: unknown) => unknown) =>
  expectRowsMatch(rows, expected, convert);

describe('img-etl --to parquet --to arrow,csv against the bundled service', () => {
  it('exits 0 and prints a summary naming every file', () => {
    expect(run.stderr).not.toMatch(/Error|at .*\.js:\d+/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`complete snapshot of ${service.listUrl}`);
    for (const table of ['images', 'collections']) {
      for (const format of ['parquet', 'arrow', 'csv']) expect(run.stdout).toContain(`${table}.${format}`);
    }
    expect(run.stdout).toContain('manifest.json');
  });

  it('serves a mix that covers the hard cases (guards the value checks below)', () => {
    const types = new Set(served.map((r) => r['image_type']));
    expect(types).toEqual(new Set(['statistic_map', 'atlas', 'NIDM results statistic map']));
    expect(served.some((r) => r['cognitive_paradigm_cogatlas'] === 'None / Other')).toBe(true);
    expect(served.some((r) => r['modality'] === '')).toBe(true);
    expect(served.some((r) => typeof r['CIAS'] === 'number') && served.some((r) => r['CIAS'] === '')).toBe(true);
    expect(
      served.some((r) => String(r['add_date']).endsWith('+02:00')) &&
        served.some((r) => String(r['add_date']).endsWith('+01:00')),
    ).toBe(true);
    expect(served.some((r) => !String(r['modify_date']).includes('.'))).toBe(true);
  });

  it('writes only the final files: no temporary file, no rejects file', async () => {
    expect((await readdir(out)).sort()).toEqual([
      ...['collections.arrow', 'collections.csv', 'collections.parquet'],
      ...['images.arrow', 'images.csv', 'images.parquet', 'manifest.json'],
    ]);
  });

  it('Parquet: DuckDB sees every column with its type', async () => {
    const db = await openDuckDB();
    const described = await query(db, `DESCRIBE SELECT * FROM read_parquet(${sqlString(join(out, 'images.parquet'))})`);
    expect(described.map((d) => [d['column_name'], d['column_type']])).toEqual(
      COLUMNS.map((c) => [c.name, DUCKDB_TYPE[c.type.kind]]),
    );
  });

  it('Parquet: every value equals what was served, timestamps to the microsecond', async () => {
    const db = await openDuckDB();
    const select = COLUMNS.map((c) =>
      c.type.kind === 'timestamp' ? `epoch_us("${c.name}") AS "${c.name}"` : `"${c.name}"`,
    ).join(', ');
    const rows = await query(db, `SELECT ${select} FROM read_parquet(${sqlString(join(out, 'images.parquet'))})`);
    expectRows(rows);
  });

  it(
    'Parquet: zstd, dictionary-encoded categories, and key-value metadata with source, ' + 'time and schema version',
    async () => {
      const db = await openDuckDB();
      const file = sqlString(join(out, 'images.parquet'));
      const meta = await query(db, `SELECT DISTINCT compression FROM parquet_metadata(${file})`);
      expect(meta.map((m) => m['compression'])).toEqual(['ZSTD']);
      const encodings = await query(
        db,
        `SELECT path_in_schema, encodings FROM parquet_metadata(${file}) WHERE path_in_schema = 'map_type'`,
      );
      expect(String(encodings[0]!['encodings'])).toMatch(/DICTIONARY/);
      const kv = await query(db, `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${file})`);
      const map = new Map(kv.map((r) => [r['key'], r['value']]));
      expect(map.get('img-etl.source_url')).toBe(service.listUrl);
      expect(map.get('img-etl.schema_version')).toBe('1');
      expect(Number.isNaN(Date.parse(String(map.get('img-etl.snapshot_time'))))).toBe(false);
    },
  );

  it(
    'Arrow IPC file: apache-arrow reads the schema with dictionary, UTC microsecond ' + 'timestamp and int64 types',
    async () => {
      const table = tableFromIPC(await readFile(join(out, 'images.arrow')));
      expect(table.schema.fields.map((f) => f.name)).toEqual(COLUMNS.map((c) => c.name));
      for (const column of COLUMNS) {
        const type = table.schema.fields.find((f) => f.name === column.name)!.type as DataType;
        const check: Record<ColumnKind, boolean> = {
          int64: DataType.isInt(type) && type.bitWidth === 64 && type.isSigned,
          float64: DataType.isFloat(type) && type.precision === Precision.DOUBLE,
          boolean: DataType.isBool(type),
          timestamp: DataType.isTimestamp(type) && type.unit === TimeUnit.MICROSECOND && type.timezone === 'UTC',
          string: DataType.isUtf8(type),
          category: DataType.isDictionary(type) && DataType.isUtf8(type.dictionary),
          json: DataType.isUtf8(type),
        };
        expect([column.name, check[column.type.kind]]).toEqual([column.name, true]);
      }
    },
  );

  it('Arrow IPC file: every value equals what was served', async () => {
    const table = tableFromIPC(await readFile(join(out, 'images.arrow')));
    const columns = Object.fromEntries(COLUMNS.map((c) => [c.name, arrowValues(table.getChild(c.name)!)]));
    const rows = Array.from({ length: table.numRows }, (_, i) =>
      Object.fromEntries(COLUMNS.map((c) => [c.name, columns[c.name]![i]])),
    );
    expectRows(rows);
  });

  it('CSV: header, and every value in its documented text form', async () => {
    const db = await openDuckDB();
    const rows = await query(
      db,
      `SELECT * FROM read_csv(${sqlString(join(out, 'images.csv'))}, header = true, ` +
        `all_varchar = true, allow_quoted_nulls = false)`,
    );
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS.map((c) => c.name));
    const formula = /^[=+\-@\t\r]/;
    expectRows(rows, (kind, text) => {
      if (text === null) return null;
      const s = text as string;
      switch (kind) {
        case 'int64':
          return BigInt(s);
        case 'float64':
          return Number(s);
        case 'boolean':
          expect(['true', 'false']).toContain(s);
          return s === 'true';
        case 'timestamp':
          expect(s).toBe(isoMicros(epochMicros(s)));
          return epochMicros(s);
        default:
          // Spreadsheet formulas are neutralised with a leading apostrophe (on by default).
          return s.startsWith("'") && formula.test(s.slice(1)) ? s.slice(1) : s;
      }
    });
  });

  it('manifest: counts, normalisation counts and each file with rows, bytes and sha256', async () => {
    const manifest = await readManifest(out);
    expect(manifest).toMatchObject({
      source_url: service.listUrl,
      complete: true,
      count_at_start: served.length,
      count_at_end: served.length,
      records_written: served.length,
      duplicates_dropped: 0,
      rejects: 0,
      page_size: 50,
      pages_fetched: Math.ceil(served.length / 50),
    });
    const sentinels = served.filter((r) => r['cognitive_paradigm_cogatlas'] === 'None / Other').length;
    expect(manifest.normalisation.sentinel_to_null['cognitive_paradigm_cogatlas']).toBe(sentinels);
    const emptyModality = served.filter((r) => r['modality'] === '').length;
    expect(manifest.normalisation.empty_to_null['modality']).toBe(emptyModality);
    expect(manifest.files.map((f: { name: string }) => f.name).sort()).toEqual([
      'collections.arrow',
      'collections.csv',
      'collections.parquet',
      'images.arrow',
      'images.csv',
      'images.parquet',
    ]);
    for (const file of manifest.files) {
      const bytes = await readFile(join(out, file.name));
      const rows = file.name.startsWith('collections.') ? service.dataset.collections.publicCount : served.length;
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      expect([file.name, file.rows, file.bytes, file.sha256]).toEqual([file.name, rows, bytes.byteLength, sha256]);
    }
    expect(Date.parse(manifest.finished_at)).toBeGreaterThanOrEqual(Date.parse(manifest.started_at));
  });
});
