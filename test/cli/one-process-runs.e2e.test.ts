/**
 * The command line run again and again in one process (a library user's runCli, the tests' runCliHere): each run
 * leaves the process as it found it (no listener of a signal or of uncaught exceptions left behind, no timer, socket or
 * file handle more) and writes what the first wrote. Past ten runs a listener left behind each time would also be
 * node's MaxListenersExceededWarning.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startFixtureService({ records: 60, seed: 15 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

const EVENTS = ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection', 'warning', 'exit'] as const;
const listeners = () => Object.fromEntries(EVENTS.map((e) => [e, process.listenerCount(e)]));
/** The process's active handles and requests by kind, those that stay open past a run only. */
const resources = () => {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
};
const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

it('twelve snapshots in one process: the same files, exit code and summary, nothing left behind', async () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  await settle();
  const before = { listeners: listeners(), resources: resources() };
  let first: unknown;
  for (let n = 0; n < 12; n++) {
    const out = join(dir, `run-${n}`);
    const run = await runCliHere(['--base-url', service.url, '--out', out, '--to', 'parquet,csv', '--summary', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { records?: unknown; files?: { path: string }[] };
    const files = await Promise.all(['images.csv', 'collections.csv'].map((name) => sha256(join(out, name))));
    const seen = { records: summary.records, files, stderrLines: run.stderr.split('\n').length };
    if (n === 0) first = seen;
    else expect(seen, `run ${n}`).toEqual(first);
    await settle();
    expect(listeners(), `run ${n}`).toEqual(before.listeners);
    const now = resources();
    for (const kind of ['Timeout', 'TCPSocketWrap', 'FSReqCallback', 'FileHandle', 'Immediate'])
      expect(now[kind] ?? 0, `run ${n}: ${kind}`).toBeLessThanOrEqual(before.resources[kind] ?? 0);
  }
});
