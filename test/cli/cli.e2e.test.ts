/**
 * The command line's contract: rejects, duplicates, the second Parquet engine, the CSV engines, bad options, help,
 * demo. Real CLI, real loopback HTTP (the bundled service, or a scripted server for what it would never serve).
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Reject } from '../../src/schema/row.js';
import { COLUMNS } from '../../src/schema/columns.js';
import { expectedRow, expectRowsMatch } from '../helpers/expected-row.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { readManifest } from '../helpers/read-manifest.js';

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

/** Serves `records` as a list, `limit` records a page; a copy of the images list alone (no collections: 404). */
async function serveRecords(records: unknown[], limit = 10): Promise<ScriptedServer> {
  server = await startScriptedServer((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/api/collections/') return sendJson(res, { detail: 'Not found.' }, 404);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const link = (o: number) => `${origin}/api/images/?limit=${limit}&offset=${o}`;
    sendJson(res, {
      count: records.length,
      next: offset + limit >= records.length ? null : link(offset + limit),
      previous: offset <= 0 ? null : link(Math.max(0, offset - limit)),
      results: records.slice(offset, offset + limit),
    });
  });
  return server;
}

const selectExact = () =>
  COLUMNS.map((c) => (c.type.kind === 'timestamp' ? `epoch_us("${c.name}") AS "${c.name}"` : `"${c.name}"`)).join(', ');

describe('img-etl command line', () => {
  it(
    'keeps records that break the schema in rejects.ndjson with the raw record, its own URL ' +
      'and issues, and goes on',
    async () => {
      const good = fixtureRecords.slice(0, 25);
      const bad = [
        { ...fixtureRecords[30], file_size: '19605' },
        { ...fixtureRecords[31], id: undefined },
        { ...fixtureRecords[32], add_date: '2016-01-21T18:21:57.860138' },
      ];
      const s = await serveRecords([
        ...good.slice(0, 10),
        bad[0],
        ...good.slice(10, 20),
        bad[1],
        bad[2],
        ...good.slice(20),
      ]);
      const run = await runCli(['--base-url', s.origin, '--out', out, '--to', 'parquet']);
      expect(run.code).toBe(0);
      const lines = (await readFile(join(out, 'rejects.ndjson'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Reject);
      expect(lines).toHaveLength(3);
      // In the order of their keys, each with where it can be fetched alone (nothing of the page it was on).
      const ids = [fixtureRecords[30]!['id'], fixtureRecords[32]!['id']] as number[];
      const [first, second] = [...ids].sort((a, b) => a - b);
      expect(lines.map((l) => l.url)).toEqual([
        `${s.origin}/api/images/${first}/`,
        `${s.origin}/api/images/${second}/`,
        `${s.origin}/api/images/`,
      ]);
      const paths = first === ids[0] ? [['file_size'], ['add_date']] : [['add_date'], ['file_size']];
      expect(lines.map((l) => l.issues[0]!.path)).toEqual([...paths, ['id']]);
      expect(lines.find((l) => l.issues[0]!.path[0] === 'file_size')!.record).toEqual(
        JSON.parse(JSON.stringify(bad[0])) as unknown,
      );
      const manifest = await readManifest(out);
      expect(manifest).toMatchObject({ rejects: 3, records_written: 25, received: 28, complete: true });
      expect(manifest.files.map((f: { name: string }) => f.name).sort()).toEqual(['images.parquet', 'rejects.ndjson']);
      const db = await openDuckDB();
      const rows = await query(db, `SELECT count(*) AS n FROM read_parquet(${sqlString(join(out, 'images.parquet'))})`);
      expect(rows[0]!['n']).toBe(25n);
    },
  );

  it(
    'drops a record repeated across pages, counts it, and does not call the snapshot ' +
      'complete when count promised more',
    async () => {
      const records = fixtureRecords.slice(0, 20);
      const s = await serveRecords([...records.slice(0, 10), records[3], ...records.slice(10)], 10);
      const run = await runCli(['--base-url', s.origin, '--out', out, '--page-size', '10']);
      expect(run.code).toBe(3);
      expect(run.stdout).toContain('INCOMPLETE');
      const manifest = await readManifest(out);
      // Pass 1 saw the repeat and could not reach count; pass 2 saw the same and added nothing, so the run stopped.
      expect(manifest).toMatchObject({
        records_written: 20,
        duplicates_dropped: 2,
        expected: 21,
        received: 20,
        missing: 1,
        complete: false,
      });
      expect(
        manifest.passes.map((p: { added: number; duplicates: number; clean: boolean }) => [
          p.added,
          p.duplicates,
          p.clean,
        ]),
      ).toEqual([
        [20, 1, false],
        [0, 1, false],
      ]);
    },
  );

  it('--parquet-engine parquetjs writes the same values, read back by DuckDB', async () => {
    const service = await startFixtureService({ records: 150, seed: 3 });
    try {
      const run = await runCli(['--base-url', service.url, '--out', out, '--parquet-engine', 'parquetjs']);
      expect(run.code).toBe(0);
      const db = await openDuckDB();
      const rows = await query(
        db,
        `SELECT ${selectExact()} FROM read_parquet(${sqlString(join(out, 'images.parquet'))})`,
      );
      const expected = new Map([...service.servedRecords()].map((r) => [BigInt(r['id'] as number), expectedRow(r)]));
      expectRowsMatch(rows, expected);
    } finally {
      await service.close();
    }
  });

  it('--csv-engine csv-stringify writes the same bytes as the default builtin engine', async () => {
    const service = await startFixtureService({ records: 150, seed: 3 });
    try {
      const files: Buffer[] = [];
      for (const engine of ['builtin', 'csv-stringify']) {
        const run = await runCli([
          '--base-url',
          service.url,
          '--out',
          join(out, engine),
          '--to',
          'csv',
          '--csv-engine',
          engine,
          '--page-size',
          '50',
        ]);
        expect(run.code, run.stderr).toBe(0);
        files.push(await readFile(join(out, engine, 'images.csv')));
      }
      expect(files[0]!.length).toBeGreaterThan(0);
      expect(files[0]!.equals(files[1]!)).toBe(true);
      const manifest = await readManifest(join(out, 'builtin'));
      expect(manifest).toMatchObject({ records_written: service.dataset.size, complete: true });
    } finally {
      await service.close();
    }
  });

  it.each([
    [['--to', 'xml'], '--to: unknown format "xml"; choose from parquet, arrow, csv'],
    [['--concurrency', '0'], '--concurrency: expected a whole number from 1 to 64, got 0'],
    [
      ['--page-size', 'many'],
      '--page-size: expected a whole number from 1 to 1000, got something that is not a number',
    ],
    [
      ['--base-url', 'neurovault.org'],
      '--base-url: "neurovault.org" is not a URL: did you mean https://neurovault.org?',
    ],
    [['--bogus'], 'unknown option --bogus (see img-etl --help)'],
    [['--max-page-mb', '0'], '--max-page-mb: expected a positive number of MiB, got 0'],
    [['--parquet-engine', 'fast'], 'img-etl: --parquet-engine: expected wasm or parquetjs, got "fast"'],
    [['--csv-engine', 'fast'], 'img-etl: --csv-engine: expected builtin or csv-stringify, got "fast"'],
  ])('refuses %j with exit code 2 and a one-line message', async (args, message) => {
    const run = await runCli([...args, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(out)).toEqual([]);
  });

  it('fails with exit code 1 and one line naming the URL when the service cannot be reached', async () => {
    const run = await runCli(['--base-url', 'http://127.0.0.1:9', '--out', out, '--max-attempts', '2']);
    expect(run.code).toBe(1);
    const last = run.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      /^img-etl: extract: GET http:\/\/127\.0\.0\.1:9\/api\/collections\/\?limit=1000&offset=0 failed \([^)]*ECONNREFUSED[^)]*\) after 2 attempts; check --base-url$/,
    );
    expect(await readdir(out)).toEqual([]);
  });

  it(
    'stops a list that repeats the same records endlessly, with one line naming the ' + 'page, and exit code 1',
    async () => {
      const records = fixtureRecords.slice(0, 10);
      server = await startScriptedServer((req, res, origin) => {
        const url = new URL(req.url ?? '/', origin);
        // A copy of the list alone.
        if (url.pathname !== '/api/images/') return sendJson(res, { detail: 'Not found.' }, 404);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        sendJson(res, {
          count: 5_000_000,
          next: `${origin}/api/images/?limit=10&offset=${offset + 10}`,
          previous: null,
          results: records,
        });
      });
      const run = await runCli(['--base-url', server.origin, '--out', out, '--page-size', '10']);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(
        new RegExp(
          `^img-etl: extract: GET ${server.origin}/api/images/\\?limit=10&offset=10 and the 19 ` +
            `pages after it held only records already received in this pass: the list repeats ` +
            `itself endlessly$`,
        ),
      );
      expect(server.requests.length).toBeLessThan(30);
    },
  );

  it(
    'stops a collections list that repeats the same collections endlessly, ' +
      'with one line naming the page, and exit code 1',
    async () => {
      const collections = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `c${i + 1}`, number_of_images: 1 }));
      server = await startScriptedServer((req, res, origin) => {
        const url = new URL(req.url ?? '/', origin);
        if (url.pathname !== '/api/collections/') return sendJson(res, { detail: 'Not found.' }, 404);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const next = `${origin}/api/collections/?limit=10&offset=${offset + 10}`;
        sendJson(res, { count: 5_000_000, next, previous: null, results: collections });
      });
      const run = await runCli(['--base-url', server.origin, '--out', out, '--page-size', '10']);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n').at(-1)).toBe(
        `img-etl: extract: GET ${server.origin}/api/collections/?limit=10&offset=10 ` +
          'and the 19 pages after it held only records already received in this pass: ' +
          'the list repeats itself endlessly',
      );
      expect(server.requests.length).toBeLessThan(30);
    },
  );

  it(
    '--max-page-mb caps a page body: a larger page is retried, ' +
      'then fails with one line naming the URL and the cap',
    async () => {
      const s = await serveRecords(fixtureRecords.slice(0, 40), 40);
      const run = await runCli([
        '--base-url',
        s.origin,
        '--out',
        out,
        '--max-page-mb',
        '0.01',
        '--max-attempts',
        '2',
        '--retry-delay',
        '0.01',
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(
        new RegExp(
          `^img-etl: extract: GET ${s.origin}/api/images/\\?limit=1000&offset=0 returned a ` +
            `body of \\d+ bytes, over the 10486-byte cap after 2 attempts$`,
        ),
      );
    },
  );

  it('sends --token (here from IMG_ETL_TOKEN) to the base host only, and never writes it anywhere', async () => {
    const s = await serveRecords(fixtureRecords.slice(0, 12), 5);
    const token = 'tok_5ecret_abc123';
    const run = await runCli(['--base-url', s.origin, '--out', out, '--to', 'parquet,csv'], {
      env: { IMG_ETL_TOKEN: token },
    });
    expect(run.code).toBe(0);
    expect(s.seen.every((r) => r.headers['authorization'] === `Token ${token}`)).toBe(true);
    for (const text of [
      run.stdout,
      run.stderr,
      await readFile(join(out, 'manifest.json'), 'utf8'),
      (await readFile(join(out, 'images.parquet'))).toString('latin1'),
    ]) {
      expect(text).not.toContain(token);
    }
  });

  it('refuses credentials inside --base-url without echoing them', async () => {
    const run = await runCli(['--base-url', 'https://user:hunter2@neurovault.org', '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'img-etl: --base-url: credentials in the URL are not supported; pass a token with --token or IMG_ETL_TOKEN',
    );
  });

  it('--help lists every option with its default and examples', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const option of [
      '--to',
      '--base-url',
      '--out',
      '--concurrency',
      '--page-size',
      '--parquet-engine',
      '--csv-engine',
      '--max-attempts',
      '--timeout',
      '--neutralise-formulas',
    ]) {
      expect(run.stdout).toContain(option);
    }
    expect(run.stdout).toContain('[default: "https://neurovault.org"]');
    expect(run.stdout).toContain('Examples:');
  });

  it('demo writes two --snapshot runs, report and loaders too, and ends with what to try next with them', async () => {
    const run = await runCli(['demo', '--records', '300', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/complete snapshot of http:\/\/127\.0\.0\.1:\d+\/api\/images\//);
    expect(run.stdout).toContain('359 written, 0 rejected; the service counts 359: 0 missing');
    expect(run.stdout).toContain('first 5 rows:');
    const names = await readdir(out);
    expect(names).toHaveLength(3);
    const [first, second] = names.filter((name) => name !== 'latest').map((name) => join(out, name));
    expect(names).toEqual([basename(first!), basename(second!), 'latest']);
    const latest = join(out, 'latest');
    expect(JSON.parse(await readFile(join(latest, 'manifest.json'), 'utf8'))).toMatchObject({ kind: 'incremental' });
    const tables = ['collections', 'images'].flatMap((t) => [`${t}.arrow`, `${t}.csv`, `${t}.parquet`]);
    const loaders = ['load.py', 'load.sql', 'report.html', 'report.json'];
    expect(await readdir(second!)).toEqual(expect.arrayContaining([...tables, ...loaders, 'manifest.json']));
    expect(run.stdout).toMatch(/\nthen 3 records edited and [1-3] added in a new collection, and snapshotted again/);
    // Its last lines: what to try next, on the paths it wrote, each of which is there.
    const next = run.stdout
      .slice(run.stdout.lastIndexOf('\ntry next:\n') + 1)
      .trimEnd()
      .split('\n');
    expect(next).toHaveLength(5);
    expect(next[1]).toContain(`open ${join(second!, 'report.html')}`);
    expect(next[2]).toContain(`python3 -i ${join(second!, 'load.py')}`);
    expect(next[3]).toContain(`npx img-etl diff ${first} ${latest}`);
    expect(next[4]).toContain('npx img-etl files ');
    const named = next.join(' ').match(new RegExp(`${out}[^\\s,]*`, 'g'))!;
    expect(named.filter((path) => !existsSync(path))).toEqual([]);
    // What the diff it suggests finds: the edits, and the records added.
    const diff = await runCli(['diff', first!, latest, '--out', join(out, 'diff')]);
    expect(diff.stdout).toMatch(/^img-etl diff: .*: [1-3] added, 0 removed, 3 changed, \d+ unchanged\n/);
  });
});
