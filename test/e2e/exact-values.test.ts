/**
 * Values do not change on the way: the real CLI against a scripted loopback server whose page text the test writes
 * byte by byte, every output read back by DuckDB and apache-arrow and compared with what was served.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { arrowValues } from '../helpers/arrow-values.js';
import { epochMicros } from '../helpers/expected-row.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

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
