/**
 * Values do not change on the way: the real CLI against a scripted loopback server whose page text the test writes
 * byte by byte, every output read back by DuckDB and apache-arrow and compared with what was served.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareRejectKeys } from '../../src/extract/staging/record-index.js';
import { rejectKey } from '../../src/extract/staging/save-page.js';
import { COLUMNS } from '../../src/schema/columns.js';
import { arrowValues } from '../helpers/arrow-values.js';
import { epochMicros } from '../helpers/expected-row.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

let out: string;
let server: ScriptedServer | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await removeDir(out);
});

/** A list page whose `results` are the given record texts, exactly as written. */
function pageText(records: string[], offset: number, limit: number, origin: string): Buffer {
  const more = offset + limit < records.length;
  const next = more ? `"${origin}/api/images/?limit=${limit}&offset=${offset + limit}"` : 'null';
  const results = records.slice(offset, offset + limit).join(',');
  return Buffer.from(`{"count":${records.length},"next":${next},"previous":null,"results":[${results}]}`);
}

/**
 * Serves `records` (their JSON texts), `limit` a page; with `split`, a page after the first answers 500 until asked
 * for at most two records, so that the client splits it into halves. No collections (404).
 */
async function serveTexts(records: string[], limit: number, split = false): Promise<ScriptedServer> {
  server = await startScriptedServer((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/api/collections/') return sendJson(res, { detail: 'Not found.' }, 404);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const size = Number(url.searchParams.get('limit') ?? limit);
    if (split && offset > 0 && size > 2) return sendJson(res, { detail: 'server error' }, 500);
    const body = pageText(records, offset, size, origin);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  return server;
}

/** Runs the CLI against the server into `dir`; expects exit code 0 and nothing on stderr. */
async function snapshot(dir: string, ...args: string[]): Promise<void> {
  const run = await runCliHere(['--base-url', server!.origin, '--out', dir, '--quiet', ...args]);
  expect([run.code, run.stderr]).toEqual([0, '']);
}

/** SELECT … FROM the file `name` of the output folder, read by DuckDB (CSV as text). */
async function select(columns: string, name: string, rest = ''): Promise<Record<string, unknown>[]> {
  const path = sqlString(join(out, name));
  const from = name.endsWith('.csv') ? `read_csv(${path}, header = true, all_varchar = true)` : `read_parquet(${path})`;
  return query(await openDuckDB(), `SELECT ${columns} FROM ${from} ${rest}`);
}

/** A real record's JSON text with some of its keys replaced (the text of each new value given as is). */
function recordText(base: Record<string, unknown>, replace: Record<string, string> = {}): string {
  return `{${Object.entries(base)
    .map(([key, value]) => `${JSON.stringify(key)}:${replace[key] ?? JSON.stringify(value)}`)
    .join(',')}}`;
}

describe('timestamps outside years 0000-9999', () => {
  // A served time near the year limits with an offset names an instant in year -1 or 10000.
  const served = [
    {
      add_date: '9999-12-31T23:30:00-01:00',
      modify_date: '9999-12-31T23:59:59.999999-14:00',
      utc: ['+010000-01-01T00:30:00.000000Z', '+010000-01-01T13:59:59.999999Z'],
    },
    {
      add_date: '0000-01-01T00:30:00+01:00',
      modify_date: '0000-01-01T00:00:00.000001+01:00',
      utc: ['-000001-12-31T23:30:00.000000Z', '-000001-12-31T23:00:00.000001Z'],
    },
  ];

  it('are exact in Parquet and Arrow, and in CSV have seconds and fraction, never formula-quoted', async () => {
    const dates = (s: (typeof served)[number]) => ({
      add_date: JSON.stringify(s.add_date),
      modify_date: JSON.stringify(s.modify_date),
    });
    await serveTexts(
      served.map((s, i) => recordText({ ...fixtureRecords[i]!, id: i + 1 }, dates(s))),
      100,
    );
    await snapshot(out, '--to', 'parquet,arrow,csv');
    const micros = served.map((t) => [epochMicros(t.add_date), epochMicros(t.modify_date)]);
    // The UTC texts name the served instants.
    expect(served.flatMap((t) => t.utc.map(epochMicros))).toEqual(micros.flat());

    const exact = 'epoch_us(add_date) AS a, epoch_us(modify_date) AS m';
    const parquet = await select(exact, 'images.parquet', 'ORDER BY id');
    expect(parquet.map((r) => [r['a'], r['m']])).toEqual(micros);

    const arrow = tableFromIPC(await readFile(join(out, 'images.arrow')));
    const [a, m] = [arrowValues(arrow.getChild('add_date')!), arrowValues(arrow.getChild('modify_date')!)];
    expect(a.map((v, i) => [v, m[i]])).toEqual(micros);

    const csv = await select('add_date, modify_date', 'images.csv', 'ORDER BY id::BIGINT');
    expect(csv.map((r) => [r['add_date'], r['modify_date']])).toEqual(served.map((t) => t.utc));
    const lines = (await readFile(join(out, 'images.csv'), 'utf8')).split('\n');
    for (const text of served.flatMap((t) => t.utc)) {
      expect(lines.some((line) => line.includes(`,${text},`))).toBe(true); // bare: no quotes, no '
    }

    const reference = join(out, 'csv-stringify');
    await snapshot(reference, '--to', 'csv', '--csv-engine', 'csv-stringify');
    expect((await readFile(join(reference, 'images.csv'))).equals(await readFile(join(out, 'images.csv')))).toBe(true);
  });
});

describe('extra and rejects.ndjson hold the values as served', () => {
  const known = new Set(COLUMNS.map((c) => c.name));
  const plain = fixtureRecords.filter((r) => Object.keys(r).every((k) => known.has(k)));
  /** The unknown members of the first record, as served; `dup` is served twice and `"10"` comes last. */
  const members = [
    '"big":12345678901234567890',
    '"huge":1e400',
    '"negative_zero":-0',
    '"one":1.0',
    '"exponent":1E5',
    '"escaped":"\\u00e9"',
    '"café":"naïve 🧠"',
    '"dup":1',
    '"nested":{ "a" : [1, 2.50, {"b":null}], "c":"x\\"y" }',
    '"__proto__":{"polluted":true}',
    '"dup":[2]',
    '"10":"ten"',
  ];
  /** What `extra` must hold for it: every member as served, `dup` once, with its last value, at its last place. */
  const extraOfFirst =
    '{"big":12345678901234567890,"huge":1e400,"negative_zero":-0,"one":1.0,"exponent":1E5,"escaped":"\\u00e9",' +
    '"café":"naïve 🧠","nested":{ "a" : [1, 2.50, {"b":null}], "c":"x\\"y" },"__proto__":{"polluted":true},' +
    '"dup":[2],"10":"ten"}';
  const withExtra = (base: Record<string, unknown>, id: number, extra: string[]) =>
    `${recordText({ ...base, id }).slice(0, -1)},${extra.join(',')}}`;
  const served = [
    withExtra(plain[0]!, 11, members),
    withExtra(plain[1]!, 12, ['"CIAS":""', '"score":47.0']),
    // A reject with line breaks: written on one line without the whitespace outside its strings.
    '{\n  "id": 12345678901234567891,\n  "name": "bad \\n  record",\n  "file_size": "19605",\n  "x": 1e400\n}',
    // A reject without line breaks: written exactly as served.
    '{"id": 9007199254740993, "add_date": "yesterday", "x": [1.0, -0] }',
  ];
  const expectedExtra = new Map<bigint, string>([
    [11n, extraOfFirst],
    [12n, '{"CIAS":"","score":47.0}'],
  ]);
  const expectedRejects = [
    '{"id":12345678901234567891,"name":"bad \\n  record","file_size":"19605","x":1e400}',
    served[3]!,
  ];

  it('serves what the checks below expect (guards them)', () => {
    expect(extraOfFirst).toBe(`{${members.filter((m) => m !== '"dup":1').join(',')}}`);
    for (const text of served) JSON.parse(text);
    const unknown = Object.keys(JSON.parse(served[0]!) as object).filter((k) => !known.has(k));
    const parsedOrder = ['10', 'big', 'huge', 'negative_zero', 'one', 'exponent', 'escaped', 'café', 'dup', 'nested'];
    expect(unknown).toEqual([...parsedOrder, '__proto__']);
  });

  for (const split of [false, true]) {
    const how = split ? ', for a page that was split after failing' : '';
    it(`in Parquet, Arrow and CSV, byte for byte${how}`, async () => {
      const limit = 4;
      await serveTexts([...plain.slice(2, 6).map((r) => JSON.stringify(r)), ...served], limit, split);
      await snapshot(out, '--to', 'parquet,arrow,csv', '--page-size', String(limit), '--max-attempts', '1');
      if (split) expect(server!.requests).toContain(`/api/images/?limit=2&offset=6`);

      const fromParquet = await select('id, extra', 'images.parquet', 'WHERE extra IS NOT NULL');
      expect(new Map(fromParquet.map((r) => [r['id'], r['extra']]))).toEqual(expectedExtra);
      const arrow = tableFromIPC(await readFile(join(out, 'images.arrow')));
      const [ids, extras] = [arrowValues(arrow.getChild('id')!), arrowValues(arrow.getChild('extra')!)];
      expect(new Map(ids.flatMap((id, i) => (extras[i] === null ? [] : [[id, extras[i]]])))).toEqual(expectedExtra);
      const fromCsv = await select('id::BIGINT AS id, extra', 'images.csv', 'WHERE extra IS NOT NULL');
      expect(new Map(fromCsv.map((r) => [r['id'], r['extra']]))).toEqual(expectedExtra);

      const lines = (await readFile(join(out, 'rejects.ndjson'), 'utf8')).split('\n');
      expect(lines.at(-1)).toBe('');
      const record = (line: string) => line.slice(line.indexOf(',"record":') + ',"record":'.length, -1);
      // In the order of their keys: both ids are past 2^53, so their content hashes.
      const key = (text: string) => rejectKey(JSON.parse(text));
      const inKeyOrder = [...expectedRejects].sort((a, b) => compareRejectKeys(key(a), key(b)));
      expect(lines.slice(0, -1).map(record)).toEqual(inKeyOrder);
      for (const line of lines.slice(0, -1)) {
        expect(Object.keys(JSON.parse(line) as object)).toEqual(['url', 'issues', 'record']);
      }
    });
  }
});

describe('an integer served as -0', () => {
  // JSON's -0 parses to negative zero; an int64 column has no such value, so Parquet and Arrow hold 0. The CSV
  // engines must agree with them and with each other (the builtin one formats the normalised rows, csv-stringify
  // the rows read back from the staged Arrow columns).
  it('is 0 in every format and with both CSV engines', async () => {
    const served = [
      recordText({ ...fixtureRecords[0]!, id: 1 }, { number_of_subjects: '-0', file_size: '-0.0' }),
      recordText({ ...fixtureRecords[1]!, id: 2 }, { number_of_subjects: '-0', collection_id: '-0' }),
    ];
    await serveTexts(served, 1);
    await snapshot(out, '--to', 'parquet,arrow,csv', '--page-size', '1');
    const reference = join(out, 'csv-stringify');
    await snapshot(reference, '--to', 'csv', '--csv-engine', 'csv-stringify', '--page-size', '1');
    const builtinCsv = await readFile(join(out, 'images.csv'), 'utf8');
    const stringifyCsv = await readFile(join(reference, 'images.csv'), 'utf8');
    expect(builtinCsv).toBe(stringifyCsv);

    const columns = 'id, number_of_subjects, file_size, collection_id';
    const expected = [
      { id: 1n, number_of_subjects: 0n, file_size: 0n, collection_id: 1056n },
      { id: 2n, number_of_subjects: 0n, file_size: 3384n, collection_id: 0n },
    ];
    expect(await select(columns, 'images.parquet', 'ORDER BY id')).toEqual(expected);
    const csv = await select(columns, 'images.csv', 'ORDER BY id::BIGINT');
    expect(csv).toEqual(expected.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]))));
  });
});

describe('values a loader of the snapshot would not read back', () => {
  /** A record every loader reads: a CRLF in its name, "NA" as its description (CSV's hard cases). */
  const kept = recordText({ ...fixtureRecords[3]!, id: 4 }, { name: '"crlf\\r\\nin a name"', description: '"NA"' });

  /**
   * Snapshots `rejected` and `kept` (Parquet and CSV, and CSV only): rejects.ndjson must hold `rejected` as served,
   * load.sql (DuckDB, over either) and load.py (pandas, from either) must read the kept record's values exactly.
   */
  async function expectRejectedAndRest(rejected: string[]): Promise<void> {
    await serveTexts([...rejected, kept], 10);
    await snapshot(out, '--snapshot', '--to', 'parquet,csv');
    const rejects = (await readFile(join(out, 'latest', 'rejects.ndjson'), 'utf8')).trimEnd().split('\n');
    const record = (line: string) => line.slice(line.indexOf(',"record":') + ',"record":'.length, -1);
    expect(rejects.map(record)).toEqual(rejected);

    const csvOnly = join(out, 'csv');
    await snapshot(csvOnly, '--snapshot', '--to', 'csv');
    for (const folder of [join(out, 'latest'), join(csvOnly, 'latest')]) {
      const db = await openDuckDB();
      await query(db, `SET file_search_path = ${sqlString(folder)}`);
      await db.run(await readFile(join(folder, 'load.sql'), 'utf8'));
      const rows = await query(db, 'SELECT id, name, description, extra::VARCHAR AS extra FROM images ORDER BY id');
      expect(rows).toEqual([{ id: 4n, name: 'crlf\r\nin a name', description: 'NA', extra: null }]);
    }
    const unavailable = missingTools(['venv']);
    if (unavailable !== undefined) return console.warn(`exact-values: load.py not run: ${unavailable}`);
    for (const format of ['parquet', 'csv']) {
      const script = `import json, load; f = load.images(format="${format}"); print(json.dumps(list(f["name"])))`;
      const run = spawnSync(VENV_PYTHON, ['-c', script], { cwd: join(out, 'latest'), encoding: 'utf8' });
      expect([format, run.stderr, run.stdout]).toEqual([format, '', '["crlf\\r\\nin a name"]\n']);
    }
  }

  it('text with a NUL character is a reject (pandas read it from CSV cut at the NUL)', async () => {
    // load.py read "nul \0 inside" from images.csv as "nul ": pandas' CSV reader ends a field at a NUL.
    await expectRejectedAndRest([
      recordText({ ...fixtureRecords[0]!, id: 1 }, { name: '"nul \\u0000 inside"' }),
      recordText({ ...fixtureRecords[1]!, id: 2 }, { map_type: '"T\\u0000map"' }),
    ]);
  });

  it('an unknown key or value with a lone surrogate escape is a reject (load.sql failed on every query)', async () => {
    // DuckDB's JSON, which load.sql casts `extra` to, refuses a lone surrogate: any query reading extra failed.
    await expectRejectedAndRest([
      `${recordText({ ...fixtureRecords[1]!, id: 2 }).slice(0, -1)},"lone":"\\ud800 half"}`,
      `${recordText({ ...fixtureRecords[2]!, id: 3 }).slice(0, -1)},"\\udc00":1}`,
      `${recordText({ ...fixtureRecords[0]!, id: 5 }).slice(0, -1)},"deep":{"a":["\\ud83e"]}}`,
    ]);
  });
});

describe('a number whose value as parsed is not the one its text says', () => {
  const exactTexts = { number_of_subjects: '20.0', file_size: '1E3', age: '-0.0' };
  // JSON.parse turns 1e-400 into 0 and 9007199254740990.5 into an integer: an int64 column took them as integers,
  // a float64 column took 1e-400 as 0, and every format held the changed value.
  const served = [
    recordText({ ...fixtureRecords[0]!, id: 1 }, { number_of_subjects: '1e-400' }),
    recordText({ ...fixtureRecords[1]!, id: 2 }, { file_size: '9007199254740990.5' }),
    recordText({ ...fixtureRecords[2]!, id: 3 }, { age: '1e-400' }),
    recordText({ ...fixtureRecords[3]!, id: 4 }, { BMI: '-2.5E-400', collection_id: '1.00000000000000001' }),
    // Exact: an integer with a zero fraction or an exponent, -0.0 (float64 keeps it), and 1e-400 in extra (its text).
    `${recordText({ ...fixtureRecords[4]!, id: 5 }, exactTexts).slice(0, -1)},"tiny":1e-400}`,
  ];

  it('is a reject with its text as served; an integer written 20.0 or 1E3 is that integer', async () => {
    await serveTexts(served, 10);
    await snapshot(out, '--to', 'parquet,csv');
    const lines = (await readFile(join(out, 'rejects.ndjson'), 'utf8')).trimEnd().split('\n');
    const rejects = lines.map((line) => JSON.parse(line) as { issues: { path: string[] }[] });
    const record = (line: string) => line.slice(line.indexOf(',"record":') + ',"record":'.length, -1);
    expect(lines.map(record)).toEqual(served.slice(0, 4));
    expect(rejects.map((r) => r.issues.map((i) => i.path.join('.')))).toEqual([
      ['number_of_subjects'],
      ['file_size'],
      ['age'],
      ['collection_id', 'BMI'],
    ]);
    const columns = 'id, number_of_subjects, file_size, age::VARCHAR AS age, extra';
    const want = { id: 5n, number_of_subjects: 20n, file_size: 1000n, age: '-0.0', extra: '{"tiny":1e-400}' };
    expect(await select(columns, 'images.parquet')).toEqual([want]);
    const csv = await select('id, number_of_subjects, file_size, age, extra', 'images.csv');
    expect(csv).toEqual([{ ...want, id: '5', number_of_subjects: '20', file_size: '1000', age: '-0' }]);
  });
});
