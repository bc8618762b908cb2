/**
 * `img-etl files` stopped with Ctrl-C (SIGINT) part way through exits 130 with word on how to resume, leaves
 * under a final name only files that are whole and verified (the rest wait as `.part`), and the same command run again
 * completes the set, continuing each `.part` from its size. The service caps each file connection so that a run is
 * caught mid-download.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import {
  bytesOf,
  fileSizeWithin,
  filesUnder,
  landedBytes,
  landingPath,
  readFilesTable,
  type Rec,
  servedBytes,
  startSnapshottedService,
  whereIds,
} from '../helpers/files-run.js';
import { removeDir } from '../helpers/readers.js';
import { cliArgv, runCli } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let chosen: Rec[];
const RATE = 400_000; // bytes per second per connection: a run takes a few seconds

beforeAll(async () => {
  let records: Rec[];
  ({ service, root, snap, records } = await startSnapshottedService({ records: 300, seed: 21 }));
  chosen = records.filter(fileSizeWithin(200_000, 600_000)).slice(0, 5);
  service.setFaults({ fileBytesPerSecond: RATE });
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

/** Runs the CLI and sends it SIGINT once `at` bytes are on disk; resolves to how it ended and its stderr. */
async function interrupted(out: string, at: number, extra: string[] = []) {
  const args = ['files', snap, '--out', out, ...whereIds(chosen), '--concurrency', '2', ...extra];
  const child = spawn(process.execPath, cliArgv(args), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      ended = true;
      resolve(code);
    }),
  );
  let sent = false;
  while (!ended) {
    if (!sent && (await landedBytes(out)) >= at) {
      child.kill('SIGINT');
      sent = true;
    }
    await sleep(10);
  }
  return { code: await exited, sent, stdout, stderr };
}

/**
 * Every image file under a final name is byte-identical to what the service serves; the rest are `.part` files and
 * the validators kept beside them.
 */
async function expectOnlyVerifiedFinalNames(out: string): Promise<void> {
  const byName = new Map(chosen.map((r) => [landingPath(r), r]));
  const names = [...(await filesUnder(out)).keys()];
  for (const name of names) {
    if (name === 'files.parquet') continue;
    if (name.endsWith('.part.validator')) {
      expect(names, name).toContain(name.slice(0, -'.validator'.length));
      continue;
    }
    if (name.endsWith('.part')) {
      expect(byName.has(name.slice(0, -'.part'.length)), name).toBe(true);
      continue;
    }
    const record = byName.get(name);
    expect(record, name).toBeDefined();
    expect((await bytesOf(join(out, name))).equals(await servedBytes(record!['file'] as string)), name).toBe(true);
  }
}

it('Ctrl-C exits 130, keeps unverified bytes as .part only, and the same command completes the set', async () => {
  expect(chosen).toHaveLength(5);
  const total = chosen.reduce((n, r) => n + (r['file_size'] as number), 0);
  const out = join(root, 'files');

  const first = await interrupted(out, Math.round(total * 0.25));
  expect(first.sent).toBe(true);
  expect(first.code).toBe(130);
  expect(first.stdout).toBe('');
  expect(first.stderr).toContain('interrupted; partial files are kept as .part: run the same command again to resume');
  const afterFirst = await filesUnder(out);
  expect([...afterFirst.keys()].some((name) => name.endsWith('.part'))).toBe(true);
  expect(afterFirst.has('files.parquet')).toBe(false); // the table says what a finished run did
  await expectOnlyVerifiedFinalNames(out);

  // With --log-format json the interruption is the last line, an `interrupted` event.
  const second = await interrupted(out, Math.round(total * 0.6), ['--log-format', 'json']);
  expect(second.sent).toBe(true);
  expect(second.code).toBe(130);
  const last = JSON.parse(second.stderr.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect([last['level'], last['event']]).toEqual(['error', 'interrupted']);
  await expectOnlyVerifiedFinalNames(out);

  const before = await filesUnder(out);
  service.resetStats();
  const rerun = await runCli(['files', snap, '--out', out, ...whereIds(chosen), '--quiet']);
  expect(rerun.stderr).toBe('');
  expect(rerun.code).toBe(0);
  for (const record of chosen) {
    const name = landingPath(record);
    const requests = service.stats.files.log.filter((e) => e.path === new URL(record['file'] as string).pathname);
    const held = before.get(`${name}.part`);
    if (before.get(name) === record['file_size']) expect(requests, name).toEqual([]);
    else if (held !== undefined && held > 0)
      expect(
        requests.map((e) => [e.status, e.range]),
        name,
      ).toEqual([[206, `bytes=${held}-`]]);
    else expect(requests.map((e) => [e.status, e.range])).toEqual([[200, undefined]]);
  }
  expect([...(await filesUnder(out)).keys()]).toEqual([...chosen.map((r) => landingPath(r)), 'files.parquet'].sort());
  await expectOnlyVerifiedFinalNames(out);
  expect((await readFilesTable(out)).map((row) => row['status'])).toEqual(chosen.map(() => 'ok'));
}, 120_000);
