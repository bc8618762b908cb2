/**
 * Two `img-etl files` runs on one --out. The first takes a lock on the folder; a second started
 * while it runs exits at once with one line naming the folder and the first run's pid, and the first completes as if
 * alone. The runs overlap for sure: a proxy in front of the bundled service holds the first file request open until the
 * second run has exited.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import {
  bytesOf,
  fileSizeWithin,
  landingPath,
  readFilesTable,
  type Rec,
  servedBytes,
  whereIds,
} from '../helpers/files-run.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { cliArgv, runCli } from '../helpers/run-cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

let service: RunningService;
let proxy: ScriptedServer;
let root: string;
let chosen: Rec[];
/** Resolved to let the held file request through. */
let release: () => void = () => undefined;
let held: Promise<void> | undefined;

/** Forwards a request to the bundled service; JSON bodies with the links on the proxy's origin. */
async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = req.url ?? '/';
  if (path.startsWith('/media/') && held === undefined) {
    held = new Promise((resolve) => (release = resolve));
    await held;
  }
  const upstream = await fetch(`${service.url}${path}`);
  let body = Buffer.from(await upstream.arrayBuffer());
  const type = upstream.headers.get('content-type') ?? 'application/octet-stream';
  if (type.includes('json')) body = Buffer.from(body.toString('utf8').replaceAll(service.url, proxy.origin));
  res.writeHead(upstream.status, { 'content-type': type, 'content-length': body.length }).end(body);
}

beforeAll(async () => {
  service = await startService({ records: 60, seed: 23 });
  proxy = await startScriptedServer((req, res) => void forward(req, res).catch(() => res.destroy()));
  root = await tempDir();
  chosen = [...service.servedRecords()]
    .filter(fileSizeWithin(1, 100_000))
    .slice(0, 3)
    .sort((a, b) => (a['id'] as number) - (b['id'] as number));
});

afterAll(async () => {
  release();
  await proxy.close();
  await service.close();
  await removeDir(root);
});

it('a second run on one --out is refused with one line, the first completes; a stale lock is taken over', async () => {
  const snap = join(root, 'snap');
  const snapshot = await runCli(['--base-url', proxy.origin, '--out', snap, '--quiet']);
  expect(snapshot.code).toBe(0);
  const out = join(root, 'out');
  const args = ['files', snap, '--out', out, ...whereIds(chosen), '--concurrency', '1', '--quiet'];
  const first = spawn(process.execPath, cliArgv(args), { stdio: ['ignore', 'ignore', 'pipe'] });
  let firstErr = '';
  first.stderr.on('data', (chunk: Buffer) => (firstErr += chunk.toString()));
  const firstEnded = new Promise<number | null>((resolve) => first.once('exit', resolve));
  try {
    while (held === undefined) await sleep(10); // the first run is fetching its first file, and held there
    const second = await runCli(args);
    expect(second.stderr).toBe(`img-etl: files: ${out} is in use by another img-etl run (pid ${first.pid})\n`);
    expect(second.code).toBe(1);
  } finally {
    release();
  }
  expect(await firstEnded).toBe(0);
  expect(firstErr).toBe('');
  const rows = await readFilesTable(out);
  expect(rows.map((r) => [r['id'], r['status']])).toEqual(chosen.map((r) => [r['id'], 'ok']));
  for (const record of chosen) {
    const served = await servedBytes(`${service.url}${new URL(record['file'] as string).pathname}`);
    expect((await bytesOf(join(out, landingPath(record)))).equals(served)).toBe(true);
  }

  // The lock is gone with the run; a stale one (pid 1, not img-etl) is taken over with one line.
  const lock = join(out, '.img-etl-files.lock');
  expect(existsSync(lock)).toBe(false);
  await writeFile(lock, '1');
  const rerun = await runCli(args.filter((arg) => arg !== '--quiet'));
  expect(rerun.stderr.split('\n').filter((line) => line.includes('lock'))).toEqual([
    `img-etl: files: took over the stale lock ${lock} (pid 1 is not an img-etl run)`,
  ]);
  expect(rerun.code).toBe(0);
  expect(existsSync(lock)).toBe(false);
});
