/**
 * `img-etl serve` as a process: prints its URL, serves, stops cleanly on SIGTERM; bad values fail in one line; with
 * `--admin` it changes collections on `POST /admin/change`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_PATH } from '../helpers/fixture-service.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { allPages, fetchReply, getPage } from './http.js';
import { readManifest } from '../helpers/read-manifest.js';
import { cliArgv } from '../helpers/run-cli.js';
import { startService } from '../../src/service/index.js';

interface Served {
  child: ChildProcess;
  listUrl: string;
  /** The base URL the line says to snapshot it with. */
  baseUrl: string;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, cliArgv(['serve', '--port', '0', ...args]), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match =
        /^img-etl serve: serving [\d,]+ records at (http:\/\/127\.0\.0\.1:\d+\/api\/images\/); snapshot it with: img-etl --base-url (\S+)$/m.exec(
          stdout,
        );
      if (match) resolve({ child, listUrl: match[1]!, baseUrl: match[2]!, stdout: () => stdout, exited });
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, cliArgv(args), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': a process can exit before its pipes have given all their output (seen under load).
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Serve processes a test started: each is stopped after the test, even one that failed before it stopped them. */
const running: Served[] = [];
afterEach(async () => {
  for (const served of running.splice(0)) {
    served.child.kill('SIGTERM');
    await served.exited;
  }
});

/** `serve()` whose process afterEach stops. */
async function serveForTest(args: string[]): Promise<Served> {
  const served = await serve(args);
  running.push(served);
  return served;
}

/** Every collection's `modify_date` in `/api/collections/`, by id. */
async function modifyDates(origin: string): Promise<Map<number, string>> {
  const pages = await allPages(`${origin}/api/collections/?limit=500`);
  return new Map(pages.flatMap((p) => p.results.map((c) => [c['id'] as number, c['modify_date'] as string] as const)));
}

describe('img-etl serve', () => {
  it('prints its URL, serves generated records and closes cleanly on SIGTERM', async () => {
    const served = await serve(['--records', '250', '--seed', '3']);
    const page = await getPage(`${served.listUrl}?limit=10`);
    expect(page.count).toBe(250);
    expect(page.results).toHaveLength(10);
    served.child.kill('SIGTERM');
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stdout()).toMatch(/img-etl serve: stopped on SIGTERM after 1 requests \(1 pages served\)\n$/);
  });

  it('prints how many records it serves and the command that snapshots it, which works as printed', async () => {
    const served = await serve(['--records', '1250', '--seed', '3']);
    try {
      expect(served.stdout()).toMatch(/^img-etl serve: serving 1,250 records at /);
      expect(served.baseUrl).toBe(new URL(served.listUrl).origin);
      const out = await tempDir();
      try {
        for (const baseUrl of [served.baseUrl, served.listUrl]) {
          const result = await run(['--base-url', baseUrl, '--out', out, '--quiet', '--page-size', '500']);
          expect(result.code, result.stderr).toBe(0);
          const manifest = await readManifest(out);
          expect(manifest).toMatchObject({
            source_url: served.listUrl,
            complete: true,
            records_written: 1250,
            pages_fetched: 3,
          });
        }
      } finally {
        await removeDir(out);
      }
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });

  it('serves an NDJSON file with --data', async () => {
    const served = await serve(['--data', FIXTURE_PATH]);
    try {
      const page = await getPage(`${served.listUrl}?limit=100`);
      expect(page.count).toBe(59);
      expect(page.results[0]?.url).toBe(`${new URL(served.listUrl).origin}/images/14225/`);
    } finally {
      served.child.kill('SIGINT');
      expect((await served.exited).code).toBe(0);
    }
  });

  it('accepts the tokens given with --api-token and refuses any other with 401, as the real service', async () => {
    const served = await serveForTest(['--records', '20', '--api-token', 'issued-key']);
    const reply = (token: string) => fetchReply(served.listUrl, { headers: { authorization: `Token ${token}` } });
    expect((await reply('issued-key')).status).toBe(200);
    const refused = await reply('another-key');
    expect([refused.status, refused.text]).toEqual([401, '{"detail":"Invalid token."}']);
  });

  it('passes fault options to the service', async () => {
    const served = await serve(['--records', '20', '--rate-502', '1']);
    try {
      expect((await fetchReply(served.listUrl)).status).toBe(502);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });

  it('with --list-order real, serves the list in the real order the library gives for the same seed', async () => {
    const served = await serveForTest(['--records', '3000', '--seed', '4', '--list-order', 'real']);
    const ids = (await allPages(`${served.listUrl}?limit=1000`)).flatMap((p) => p.results.map((r) => r['id']));
    const library = await startService({ records: 3000, seed: 4, listOrder: 'real' });
    try {
      expect(ids).toEqual(library.servedIds());
      expect(ids).not.toEqual([...ids].sort((a, b) => (a as number) - (b as number)));
    } finally {
      await library.close();
    }
  });

  it('passes the planted-effect options to the service: maps on the MNI152 2 mm grid, file_size served', async () => {
    const served = await serveForTest([
      '--records',
      '200',
      '--plant-paradigm',
      'trm_550b5a47aa23e',
      '--plant-at',
      '0,0,0',
    ]);
    const page = (await (await fetch(`${served.listUrl}?limit=200`)).json()) as { results: Record<string, unknown>[] };
    const record = page.results.find((r) => (r['file_size'] as number) > 0)!;
    const file = Buffer.from(await (await fetch(record['file'] as string)).arrayBuffer());
    expect(file.length).toBe(record['file_size']);
    const nifti = gunzipSync(file);
    expect([1, 2, 3].map((d) => nifti.readInt16LE(40 + 2 * d))).toEqual([99, 117, 95]);
  });

  it('with --admin, POST /admin/change changes K collections; a bad kind is 400 in one line, GET 405', async () => {
    const served = await serveForTest(['--records', '600', '--seed', '12', '--admin']);
    const origin = served.baseUrl;
    const before = await modifyDates(origin);
    const reply = await fetchReply(`${origin}/admin/change?kind=edit&collections=2&seed=1`, { method: 'POST' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    const change = JSON.parse(reply.text) as { kind: string; collections: number[]; records: number[] };
    expect(change.kind).toBe('edit');
    expect(new Set(change.collections).size).toBe(2);
    expect(change.records).toHaveLength(2);
    for (const [i, id] of change.records.entries()) {
      const record = (await getPage(`${origin}/api/images/${id}/`)) as unknown as Record<string, unknown>;
      expect(record['collection_id']).toBe(change.collections[i]);
      expect(record['name']).toMatch(/ \(edited \d+\)$/);
    }
    const after = await modifyDates(origin);
    const moved = [...after].filter(([cid, date]) => date !== before.get(cid)).map(([cid]) => cid);
    expect(moved.sort((a, b) => a - b)).toEqual([...change.collections].sort((a, b) => a - b));
    for (const cid of change.collections) expect(after.get(cid)! > before.get(cid)!).toBe(true);

    const bad = await fetchReply(`${origin}/admin/change?kind=rename&collections=2`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('\n');
    expect(JSON.parse(bad.text)).toEqual({
      detail:
        'service: kind must be one of edit, delete, insert, private, public, new-collection, delete-collection, ' +
        'got "rename"',
    });
    const get = await fetchReply(`${origin}/admin/change?kind=edit&collections=2&seed=1`);
    expect(get.status).toBe(405);
    expect(get.headers['allow']).toBe('POST');
    expect(await modifyDates(origin)).toEqual(after);

    served.child.kill('SIGTERM');
    expect(await served.exited).toEqual({ code: 0, signal: null });
  });

  it('without --admin, POST /admin/change answers 404 and changes nothing', async () => {
    const served = await serveForTest(['--records', '600', '--seed', '12']);
    const before = await modifyDates(served.baseUrl);
    const reply = await fetchReply(`${served.baseUrl}/admin/change?kind=edit&collections=2&seed=1`, { method: 'POST' });
    expect(reply.status).toBe(404);
    expect(await modifyDates(served.baseUrl)).toEqual(before);
    served.child.kill('SIGTERM');
    expect(await served.exited).toEqual({ code: 0, signal: null });
  });

  it('--help lists --port, --records, --data and --admin first, the fault options in groups of their own', async () => {
    const help = await run(['serve', '--help']);
    expect(help.code).toBe(0);
    const groups = help.stdout.split(/\n(?=\S[^\n]*:\n)/).map((block) => ({
      title: block.slice(0, block.indexOf('\n')),
      options: [...block.matchAll(/^ {2}(--[\w-]+)/gm)].map((m) => m[1]),
    }));
    const withOptions = groups.filter((g) => g.options.length > 0);
    expect(withOptions[0]!.options.slice(0, 4)).toEqual(['--port', '--records', '--data', '--admin']);
    expect(withOptions.map((g) => g.title).slice(1, 3)).toEqual(['Faults:', 'File faults:']);
    for (const fault of ['--workers', '--rate-502', '--unstable-order', '--file-rate'])
      expect(withOptions[0]!.options).not.toContain(fault);
  });

  it.concurrent.for([
    [['--rate-500', '2'], '--rate-500: expected a probability from 0 to 1, got 2'],
    [['--records', 'many'], '--records: expected a whole number from 0, got something that is not a number'],
    [['--records', '2.5'], '--records: expected a whole number from 0, got 2.5'],
    [['--page-latency', '-5'], '--page-latency: expected a number from 0, got -5'],
    [['--port', '70000'], '--port: expected a whole number from 0 to 65535, got 70000'],
    [['--port', ''], '--port: empty; expected a number'],
    [['--list-order', 'random'], '--list-order: expected id or real, got "random"'],
    [
      ['--data', '/nonexistent/records.ndjson'],
      '--data: cannot read /nonexistent/records.ndjson: no such file or folder (ENOENT)',
    ],
    [['--data', '/'], '--data: / is a folder; give an NDJSON file of records'],
    [
      ['--plant-paradigm', 'trm_550b5a47aa23e', '--plant-at', '1,,2'],
      '--plant-at: expected x,y,z in MNI millimetres, e.g. -22,-4,-18, got "1,,2"',
    ],
    [['--plant-paradigm', 'trm_550b5a47aa23e', '--plant-z', '-1'], '--plant-z: expected a number from 0, got -1'],
    [['--plant-at', '-22,-4,-18'], '--plant-at: only with --plant-paradigm'],
  ] as const)('refuses %j with a one-line message', async ([args, message], { expect }) => {
    const result = await run(['serve', ...args]);
    expect(result.stderr).toBe(`img-etl: ${message}\n`);
    expect(result.code).toBe(2);
  });
});
