/**
 * Values do not change on the way: the real CLI against a scripted loopback server whose page text the test writes
 * byte by byte, every output read back by DuckDB and apache-arrow and compared with what was served.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COLUMNS } from '../../src/schema/columns.js';
import { arrowValues } from '../helpers/arrow-values.js';
import { epochMicros } from '../helpers/expected-row.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

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

/** Serves one page whose `results` are the given record texts, exactly as written (the list holds `count` records). */
async function servePage(recordTexts: string[], count = recordTexts.length): Promise<ScriptedServer> {
  server = await startScriptedServer((_req, res) => {
    const body = Buffer.from(`{"count":${count},"next":null,"previous":null,"results":[${recordTexts.join(',')}]}`, 'utf8');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  return server;
}

/** A real record's JSON text with some of its keys replaced (the text of each new value given as is). */
function recordText(base: Record<string, unknown>, replace: Record<string, string>): string {
  return `{${Object.entries(base)
    .map(([key, value]) => `${JSON.stringify(key)}:${replace[key] ?? JSON.stringify(value)}`)
    .join(',')}}`;
}

describe('timestamps outside years 0000-9999', () => {
  // A served time near the year limits with an offset names an instant in year -1 or 10000.
  const served = [
    { add_date: '9999-12-31T23:30:00-01:00', modify_date: '9999-12-31T23:59:59.999999-14:00', utc: ['+010000-01-01T00:30:00.000000Z', '+010000-01-01T13:59:59.999999Z'] },
    { add_date: '0000-01-01T00:30:00+01:00', modify_date: '0000-01-01T00:00:00.000001+01:00', utc: ['-000001-12-31T23:30:00.000000Z', '-000001-12-31T23:00:00.000001Z'] },
  ];

  it('are kept exactly in Parquet and Arrow, and written in CSV with seconds and fraction, never formula-quoted', async () => {
    const records = served.map((s, i) => recordText({ ...fixtureRecords[i]!, id: i + 1 }, { add_date: JSON.stringify(s.add_date), modify_date: JSON.stringify(s.modify_date) }));
    const s = await servePage(records);
    const run = await runCli(['--base-url', s.origin, '--out', out, '--to', 'parquet,arrow,csv', '--quiet']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const micros = served.map((t) => [epochMicros(t.add_date), epochMicros(t.modify_date)]);
    expect(served.flatMap((t) => t.utc.map(epochMicros))).toEqual(micros.flat()); // the UTC texts name the served instants

    const db = await openDuckDB();
    const parquet = await query(db, `SELECT epoch_us(add_date) AS a, epoch_us(modify_date) AS m FROM read_parquet(${sqlString(join(out, 'images.parquet'))}) ORDER BY id`);
    expect(parquet.map((r) => [r['a'], r['m']])).toEqual(micros);

    const arrow = tableFromIPC(await readFile(join(out, 'images.arrow')));
    const [a, m] = [arrowValues(arrow.getChild('add_date')!), arrowValues(arrow.getChild('modify_date')!)];
    expect(a.map((v, i) => [v, m[i]])).toEqual(micros);

    const csv = await query(db, `SELECT add_date, modify_date FROM read_csv(${sqlString(join(out, 'images.csv'))}, header = true, all_varchar = true) ORDER BY id::BIGINT`);
    expect(csv.map((r) => [r['add_date'], r['modify_date']])).toEqual(served.map((t) => t.utc));
    const lines = (await readFile(join(out, 'images.csv'), 'utf8')).split('\n');
    for (const text of served.flatMap((t) => t.utc)) expect(lines.some((line) => line.includes(`,${text},`))).toBe(true); // bare: no quotes, no '

    const reference = join(out, 'csv-stringify');
    const again = await runCli(['--base-url', s.origin, '--out', reference, '--to', 'csv', '--csv-engine', 'csv-stringify', '--quiet']);
    expect([again.code, again.stderr]).toEqual([0, '']);
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
  /** What `extra` must hold for it: every member as served, `dup` once, with the value served last, at its last place. */
  const extraOfFirst =
    '{"big":12345678901234567890,"huge":1e400,"negative_zero":-0,"one":1.0,"exponent":1E5,"escaped":"\\u00e9","café":"naïve 🧠",' +
    '"nested":{ "a" : [1, 2.50, {"b":null}], "c":"x\\"y" },"__proto__":{"polluted":true},"dup":[2],"10":"ten"}';
  const withExtra = (base: Record<string, unknown>, id: number, extra: string[]) => `${recordText({ ...base, id }, {}).slice(0, -1)},${extra.join(',')}}`;
  const served = [
    withExtra(plain[0]!, 11, members),
    withExtra(plain[1]!, 12, ['"CIAS":""', '"score":47.0']),
    // A reject with line breaks: written on one line without the whitespace outside its strings.
    '{\n  "id": 12345678901234567891,\n  "name": "bad \\n  record",\n  "file_size": "19605",\n  "x": 1e400\n}',
    // A reject without line breaks: written exactly as served.
    ` {"id": 9007199254740993, "add_date": "yesterday", "x": [1.0, -0] } `.trim(),
  ];
  const expectedExtra = new Map<bigint, string>([[11n, extraOfFirst], [12n, '{"CIAS":"","score":47.0}']]);
  const expectedRejects = ['{"id":12345678901234567891,"name":"bad \\n  record","file_size":"19605","x":1e400}', served[3]!];

  it('serves what the checks below expect (guards them)', () => {
    expect(extraOfFirst).toBe(`{${members.filter((m) => m !== '"dup":1').join(',')}}`);
    for (const text of served) JSON.parse(text);
    expect(Object.keys(JSON.parse(served[0]!) as object).filter((k) => !known.has(k))).toEqual(['10', 'big', 'huge', 'negative_zero', 'one', 'exponent', 'escaped', 'café', 'dup', 'nested', '__proto__']);
  });

  for (const split of [false, true]) {
    it(`in Parquet, Arrow and CSV, byte for byte${split ? ', for a page that was split after failing' : ''}`, async () => {
      const records = [...plain.slice(2, 6).map((r) => JSON.stringify(r)), ...served];
      const limit = 4;
      server = await startScriptedServer((req, res, origin) => {
        const url = new URL(req.url ?? '/', origin);
        const [offset, size] = [Number(url.searchParams.get('offset') ?? 0), Number(url.searchParams.get('limit') ?? limit)];
        // Split: the second page answers 500 until asked for at most two records.
        if (split && offset > 0 && size > 2) return sendJson(res, { detail: 'server error' }, 500);
        const next = offset + size < records.length ? `"${origin}/api/images/?limit=${size}&offset=${offset + size}"` : 'null';
        const body = Buffer.from(`{"count":${records.length},"next":${next},"previous":null,"results":[${records.slice(offset, offset + size).join(',')}]}`);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      });
      const run = await runCli(['--base-url', server.origin, '--out', out, '--to', 'parquet,arrow,csv', '--page-size', String(limit), '--max-attempts', '1', '--quiet']);
      expect([run.code, run.stderr]).toEqual([0, '']);
      if (split) expect(server.requests).toContain(`/api/images/?limit=2&offset=6`);

      const db = await openDuckDB();
      const fromParquet = await query(db, `SELECT id, extra FROM read_parquet(${sqlString(join(out, 'images.parquet'))}) WHERE extra IS NOT NULL ORDER BY id`);
      expect(new Map(fromParquet.map((r) => [r['id'], r['extra']]))).toEqual(expectedExtra);
      const arrow = tableFromIPC(await readFile(join(out, 'images.arrow')));
      const [ids, extras] = [arrowValues(arrow.getChild('id')!), arrowValues(arrow.getChild('extra')!)];
      expect(new Map(ids.flatMap((id, i) => (extras[i] === null ? [] : [[id, extras[i]]])))).toEqual(expectedExtra);
      const fromCsv = await query(db, `SELECT id::BIGINT AS id, extra FROM read_csv(${sqlString(join(out, 'images.csv'))}, header = true, all_varchar = true) WHERE extra IS NOT NULL ORDER BY 1`);
      expect(new Map(fromCsv.map((r) => [r['id'], r['extra']]))).toEqual(expectedExtra);

      const lines = (await readFile(join(out, 'rejects.ndjson'), 'utf8')).split('\n');
      expect(lines.at(-1)).toBe('');
      expect(lines.slice(0, -1).map((line) => line.slice(line.indexOf(',"record":') + ',"record":'.length, -1))).toEqual(expectedRejects);
      for (const line of lines.slice(0, -1)) expect(Object.keys(JSON.parse(line) as object)).toEqual(['url', 'issues', 'record']);
    });
  }
});
