/**
 * `img-etl files` killed with SIGKILL at several points, then run again, ends with the complete, verified
 * set;
 * where the server honours Range, no byte on disk is asked for again: every continuation starts exactly at the size of
 * the `.part` the kill left, and a file completed before a kill is not requested at all.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import {
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
import { cliArgv } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let chosen: Rec[];
const RATE = 400_000; // bytes per second per connection: a run takes a few seconds, long enough to be caught

beforeAll(async () => {
  let records: Rec[];
  ({ service, root, snap, records } = await startSnapshottedService({ records: 400, seed: 9 }));
  chosen = records.filter(fileSizeWithin(150_000, 700_000)).slice(0, 6);
  service.setFaults({ fileBytesPerSecond: RATE });
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

const args = (out: string): string[] => ['files', snap, '--out', out, ...whereIds(chosen), '--quiet'];

/**
 * Runs the CLI; with `killAt`, kills it with SIGKILL once that many bytes are on disk (final and .part files together).
 */
async function run(
  out: string,
  killAt?: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, cliArgv(args(out)), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  while (killAt !== undefined && !ended) {
    if ((await landedBytes(out)) >= killAt) {
      child.kill('SIGKILL');
      break;
    }
    await sleep(10);
  }
  const result = await exited;
  // The service ends a response it was sending when it sees the connection gone; wait for that before counting.
  while (service.stats.files.log.length < service.stats.files.requests) await sleep(10);
  return { ...result, stderr };
}

/**
 * Checks a run's requests against what was on disk before it: none for a complete file, one from the .part's size
 * otherwise; returns the bytes that leaves to fetch.
 */
function expectContinuations(before: Map<string, number>, complete: boolean): number {
  const log = service.stats.files.log;
  let left = 0;
  for (const record of chosen) {
    const name = landingPath(record);
    const size = record['file_size'] as number;
    const requests = log.filter((e) => e.path === new URL(record['file'] as string).pathname);
    if (before.get(name) === size) {
      expect(requests, name).toEqual([]);
      continue;
    }
    const held = before.get(`${name}.part`) ?? 0;
    const first = held > 0 ? [206, `bytes=${held}-`, held] : [200, undefined, 0];
    if (complete)
      expect(
        requests.map((e) => [e.status, e.range, e.start]),
        name,
      ).toEqual([first]);
    else if (requests.length > 0)
      expect([requests[0]!.status, requests[0]!.range, requests[0]!.start], name).toEqual(first);
    left += size - held;
  }
  return left;
}

it('finishes the set after kills at several points, asking only for the bytes not yet on disk', async () => {
  expect(chosen).toHaveLength(6);
  const total = chosen.reduce((n, r) => n + (r['file_size'] as number), 0);
  const out = join(root, 'files');
  let before = new Map<string, number>();
  for (const share of [0.15, 0.45, 0.8]) {
    service.resetStats();
    const killed = await run(out, Math.round(total * share));
    expect(killed.signal).toBe('SIGKILL');
    expectContinuations(before, false);
    before = await filesUnder(out);
    expect(await landedBytes(out)).toBeGreaterThanOrEqual(Math.round(total * share));
  }
  expect([...before.keys()].some((name) => name.endsWith('.part'))).toBe(true);
  service.resetStats();
  const last = await run(out);
  expect(last.stderr).toBe('');
  expect(last.code).toBe(0);
  const left = expectContinuations(before, true);
  expect(service.stats.files.bytesSent).toBe(left);
  const after = await filesUnder(out);
  expect([...after.keys()]).toEqual([...chosen.map((r) => landingPath(r)), 'files.parquet'].sort());
  for (const record of chosen) {
    expect((await readFile(join(out, landingPath(record)))).equals(await servedBytes(record['file'] as string))).toBe(
      true,
    );
  }
  const table = await readFilesTable(out);
  expect(table.map((row) => row['status'])).toEqual(chosen.map(() => 'ok'));
}, 120_000);
