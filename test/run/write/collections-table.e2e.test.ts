/**
 * The collections table: the real CLI against the bundled service (and a scripted server for what the service never
 * serves) over loopback HTTP; collections.parquet, .arrow and .csv read back by DuckDB and apache-arrow and compared
 * value by value with what /api/collections/ served, all 107 keys and `extra`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { arrowValues } from '../../helpers/arrow-values.js';
import {
  COLLECTION_COLUMN_NAMES,
  COLLECTION_FIELDS,
  collectionSelectList,
  expectedCollectionRow,
} from '../../helpers/expected-collection-row.js';
import { isoMicros, type Expected } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { fixtureRecords } from '../../helpers/fixture-records.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { listDir, openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { runCli, runCliHere } from '../../helpers/run-cli.js';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';
import { allPages } from '../../service/http.js';

type Rows = Map<bigint, Record<string, Expected>>;

/** Compares rows read back with the expected rows by id, every column of the collections table. */
function expectCollectionRows(rows: Record<string, unknown>[], expected: Rows, convert = (_: string, v: unknown) => v) {
  expect(rows.length).toBe(expected.size);
  const ids = rows.map((r) => BigInt(r['id'] as bigint | string));
  expect(ids).toEqual([...expected.keys()].sort((a, b) => (a < b ? -1 : 1))); // ascending id order
  for (const row of rows) {
    const id = BigInt(row['id'] as bigint | string);
    const want = expected.get(id)!;
    for (const name of COLLECTION_COLUMN_NAMES) {
      const got = convert(name, row[name]);
      if (!Object.is(got, want[name])) {
        throw new Error(
          `collection ${id} column ${name}: got ${String(got)} (${typeof got}), want ${String(want[name])}`,
        );
      }
    }
  }
}

/** SELECT … FROM a file of `dir`, read by DuckDB (CSV as text). */
async function select(dir: string, name: string, columns: string, rest = ''): Promise<Record<string, unknown>[]> {
  const path = sqlString(join(dir, name));
  const from = name.endsWith('.csv') ? `read_csv(${path}, header = true, all_varchar = true)` : `read_parquet(${path})`;
  return query(await openDuckDB(), `SELECT ${columns} FROM ${from} ${rest}`);
}

const TYPE_OF = new Map(COLLECTION_FIELDS.map((f) => [f.key, f.type]));

/** The CSV text of an expected value: numbers as written, timestamps in ISO UTC, formulas neutralised. */
function csvText(name: string, value: Expected): string | null {
  if (value === null) return null;
  if (TYPE_OF.get(name) === 'datetime') return isoMicros(value as bigint);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return /^[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/.test(value) ? `'${value}` : value;
  return String(value);
}

describe('collections of the bundled service', () => {
  let service: RunningService;
  let out: string;
  let expected: Rows;
  let run: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    service = await startFixtureService({ records: 3000, seed: 23 });
    out = await tempDir();
    run = await runCliHere(['--base-url', service.url, '--out', out, '--to', 'parquet,arrow,csv', '--quiet']);
    const pages = await allPages(`${service.url}/api/collections/?limit=1000`);
    const served = pages.flatMap((p) => p.results);
    expected = new Map(served.map((r) => [BigInt(r['id'] as number), expectedCollectionRow(r)]));
  });
  afterAll(async () => {
    await service?.close();
    await removeDir(out);
  });

  it('writes collections.parquet, .arrow and .csv beside the images, listed in the manifest', async () => {
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(expected.size).toBeGreaterThan(50);
    const files = ['collections.arrow', 'collections.csv', 'collections.parquet'];
    expect(await listDir(out)).toEqual([...files, 'images.arrow', 'images.csv', 'images.parquet', 'manifest.json']);
    const manifest = await readManifest(out);
    const listed = manifest.files.filter((f) => f.name.startsWith('collections'));
    expect(listed.map((f) => [f.name, f.rows]).sort()).toEqual(files.map((f) => [f, expected.size]));
    expect(manifest.collections).toMatchObject({
      source_url: `${service.url}/api/collections/`,
      schema_version: '1',
      records_written: expected.size,
      rejects: 0,
    });
    const emptied = [...expected.values()].filter((r) => r['contributors'] === null).length;
    const { collections } = manifest;
    if (!('normalisation' in collections)) throw new Error(`no collections table: ${collections.absent}`);
    expect(collections.normalisation.empty_to_null['contributors']).toBe(emptied);
  });

  it('Parquet: every collection, all 107 keys and extra, exact (DuckDB)', async () => {
    expectCollectionRows(await select(out, 'collections.parquet', collectionSelectList()), expected);
  });

  it('Parquet: typed columns (integers, floats, booleans, UTC microsecond timestamps, text)', async () => {
    const parquet = sqlString(join(out, 'collections.parquet'));
    const described = await query(await openDuckDB(), `DESCRIBE SELECT * FROM read_parquet(${parquet})`);
    const duck = {
      integer: 'BIGINT',
      number: 'DOUBLE',
      boolean: 'BOOLEAN',
      datetime: 'TIMESTAMP WITH TIME ZONE',
      string: 'VARCHAR',
      'integer[]': 'VARCHAR',
    };
    expect(described.map((c) => [c['column_name'], c['column_type']])).toEqual([
      ...COLLECTION_FIELDS.map((f) => [f.key, duck[f.type]]),
      ['extra', 'VARCHAR'],
    ]);
    const lists = await select(out, 'collections.parquet', 'id, communities::BIGINT[] AS communities');
    for (const row of lists) {
      const want = JSON.parse(expected.get(row['id'] as bigint)!['communities'] as string) as number[];
      expect(row['communities']).toEqual(want.map(BigInt));
    }
  });

  it('Arrow: every collection, all 107 keys and extra, exact (apache-arrow)', async () => {
    const table = tableFromIPC(await readFile(join(out, 'collections.arrow')));
    expect(table.schema.fields.map((f) => f.name)).toEqual(COLLECTION_COLUMN_NAMES);
    const columns = COLLECTION_COLUMN_NAMES.map((name) => arrowValues(table.getChild(name)!));
    const rows = Array.from({ length: table.numRows }, (_, i) =>
      Object.fromEntries(COLLECTION_COLUMN_NAMES.map((name, j) => [name, columns[j]![i]])),
    );
    expectCollectionRows(rows, expected);
  });

  it('CSV: every collection, all 107 keys and extra, as text (DuckDB)', async () => {
    const rows = await select(out, 'collections.csv', '*');
    const texts: Rows = new Map(
      [...expected].map(([id, row]) => [
        id,
        Object.fromEntries(Object.entries(row).map(([k, v]) => [k, csvText(k, v)])),
      ]),
    );
    expectCollectionRows(rows, texts);
  });
});

describe('collections as a scripted server serves them', () => {
  let server: ScriptedServer;
  let out: string;
  let collectionsStatus = 200;
  const image = (id: number, cid: number) => JSON.stringify({ ...fixtureRecords[0]!, id, collection_id: cid });
  /** Two collections with keys the schema lacks (values as served), one with empty strings, one without an id. */
  const collections = [
    '{"id":7,"name":"Seven","DOI":"","contributors":"","unknown_key":1.0,"another":{"a" : [1, 2.50]}}',
    '{"id":3,"name":"Three","owner":12,"add_date":"2020-01-01T10:00:00.123456+01:00","communities":[1,2]}',
    '{"name":"no id", "private": false}',
  ];

  beforeAll(async () => {
    server = await startScriptedServer((req, res, origin) => {
      const path = new URL(req.url ?? '/', origin).pathname;
      const send = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      const page = (records: string[]) =>
        `{"count":${records.length},"next":null,"previous":null,"results":[${records.join(',')}]}`;
      if (path === '/api/images/') send(200, page([image(1, 3), image(2, 7)]));
      else if (path === '/api/collections/' && collectionsStatus === 200) send(200, page(collections));
      else send(404, '{"detail":"Not found."}');
    });
  });
  afterAll(() => server?.close());
  beforeAll(async () => {
    out = await tempDir();
  });
  afterAll(() => removeDir(out));

  it('keeps unknown keys in extra as served, empty strings as null, and rejects a record without an id', async () => {
    collectionsStatus = 200;
    const dir = join(out, 'served');
    const cli = await runCliHere(['--base-url', server.origin, '--out', dir, '--to', 'parquet,csv', '--quiet']);
    expect([cli.code, cli.stderr]).toEqual([0, '']);
    const rows = await select(
      dir,
      'collections.parquet',
      'id, name, DOI, contributors, owner, epoch_us(add_date) AS t, communities, extra',
    );
    expect(rows).toEqual([
      {
        id: 3n,
        name: 'Three',
        DOI: null,
        contributors: null,
        owner: 12n,
        t: 1577869200123456n,
        communities: '[1,2]',
        extra: null,
      },
      {
        id: 7n,
        name: 'Seven',
        DOI: null,
        contributors: null,
        owner: null,
        t: null,
        communities: null,
        extra: '{"unknown_key":1.0,"another":{"a" : [1, 2.50]}}',
      },
    ]);
    const csv = await select(dir, 'collections.csv', 'id, extra', 'WHERE extra IS NOT NULL');
    expect(csv).toEqual([{ id: '7', extra: '{"unknown_key":1.0,"another":{"a" : [1, 2.50]}}' }]);
    const rejects = (await readFile(join(dir, 'collections-rejects.ndjson'), 'utf8')).split('\n');
    expect(rejects).toHaveLength(2);
    expect(rejects[0]).toMatch(/^\{"url":"http:\/\/127\.0\.0\.1:\d+\/api\/collections\/","issues":\[.*"path":\["id"\]/);
    expect(rejects[0]!.endsWith(',"record":{"name":"no id", "private": false}}')).toBe(true); // as served
    const manifest = await readManifest(dir);
    expect(manifest.collections).toMatchObject({
      records_written: 2,
      rejects: 1,
      normalisation: { empty_to_null: { DOI: 1, contributors: 1 }, records_with_extra: 1 },
    });
    expect(manifest.rejects).toBe(0); // the images' own
  });

  it(
    'a service whose /api/collections/ answers 404 gets its images and no collections files; ' +
      'the manifest says why',
    async () => {
      collectionsStatus = 404;
      const dir = join(out, 'absent');
      const cli = await runCliHere(['--base-url', server.origin, '--out', dir, '--to', 'parquet,arrow,csv', '--quiet']);
      expect([cli.code, cli.stderr]).toEqual([0, '']);
      expect(await listDir(dir)).toEqual(['images.arrow', 'images.csv', 'images.parquet', 'manifest.json']);
      const manifest = await readManifest(dir);
      const why =
        `GET ${server.origin}/api/collections/ returned 404: the service has no collection endpoints, so there is no ` +
        "collections table and completeness rests on the image list's count (1 pass)";
      expect(manifest.collections).toEqual({ source_url: `${server.origin}/api/collections/`, absent: why });
      expect(cli.stdout.split('\n').filter((line) => line.includes(why))).toEqual([`  proof     ${why}`]); // said once
    },
  );
});

describe('a collection that breaks the schema with a usable id', () => {
  let server: ScriptedServer;
  let out: string;
  beforeAll(async () => {
    out = await tempDir();
    const image = JSON.stringify({ ...fixtureRecords[0]!, id: 1, collection_id: 3 });
    const collections = ['{"id":3,"name":"Three"}', '{"id":9,"name":"Nine","owner":"twelve"}'];
    server = await startScriptedServer((req, res, origin) => {
      const path = new URL(req.url ?? '/', origin).pathname;
      const page = (records: string[]) =>
        `{"count":${records.length},"next":null,"previous":null,"results":[${records.join(',')}]}`;
      const body =
        path === '/api/images/'
          ? page([image])
          : path === '/api/collections/'
            ? page(collections)
            : '{"detail":"Not found."}';
      res.writeHead(body.startsWith('{"detail"') ? 404 : 200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  afterAll(async () => {
    await server?.close();
    await removeDir(out);
  });

  it("is in collections-rejects.ndjson under its own URL, as an image's reject is", async () => {
    const cli = await runCliHere(['--base-url', server.origin, '--out', out, '--to', 'parquet', '--quiet']);
    expect([cli.code, cli.stderr]).toEqual([0, '']);
    const [line] = (await readFile(join(out, 'collections-rejects.ndjson'), 'utf8')).trim().split('\n');
    const reject = JSON.parse(line!) as { url: string; record: unknown };
    expect(reject.url).toBe(`${server.origin}/api/collections/9/`);
    expect(reject.record).toEqual({ id: 9, name: 'Nine', owner: 'twelve' });
  });
});
