/**
 * A `--snapshot` run stopped by Ctrl-C (SIGINT) or SIGTERM before it publishes, while it pages the list, while it
 * writes the data files and while it draws the report, ends with exit code 130 and its pages kept: `latest` and the
 * snapshot before are as they were, no folder of the interrupted run is left, and the same command then resumes and
 * publishes. Each phase is found by the run's JSON log; the run is stopped (SIGSTOP) on the line that starts the phase,
 * the phase is seen in progress on disk and in the log, then the signal is sent and the run continued (SIGCONT), so
 * that the signal lands in that phase however fast the machine.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../../src/service/index.js';
import { fixtureLines } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { cliArgv, runCli } from '../../helpers/run-cli.js';

/** A served value long enough to have made the report hang (it is drawn in the report's bar charts). */
const LONG_MAP_TYPE = 'T map of a very long name '.repeat(12_000);
const RECORDS = 6_000; // the write's batches are of 1,000 rows: it is stopped at its first

let service: RunningService;
let out: string;
/** The snapshot `latest` points at, and every file of its folder, before the interrupted runs. */
let before: { latest: string; files: Map<string, string> };

const args = () => [
  ...['--base-url', service.url, '--out', out, '--snapshot', '--full', '--to', 'parquet,csv'],
  ...['--page-size', '50', '--concurrency', '2', '--log-format', 'json'],
];

beforeAll(async () => {
  const [first, ...rest] = fixtureLines();
  const long = JSON.stringify({ ...(JSON.parse(first!) as object), map_type: LONG_MAP_TYPE });
  // Two workers, 10 ms a page: the list takes a while to page, and a run stopped at its first page is still paging.
  service = await startService({
    data: [long, ...rest],
    records: RECORDS,
    seed: 39,
    faults: { workers: 2, pageLatencyMs: 10 },
  });
  out = await tempDir();
  const run = await runCli(args());
  expect(run.code, run.stderr).toBe(0);
  before = { latest: await readlink(join(out, 'latest')), files: await filesOf(join(out, 'latest')) };
}, 300_000);

afterAll(async () => {
  await service?.close();
  if (out !== undefined) await removeDir(out);
});

/** The sha256 of every file of a folder, by name (vitest compares Buffers byte by byte: seconds for a few MB). */
async function filesOf(folder: string): Promise<Map<string, string>> {
  const names = (await readdir(folder)).sort();
  const digest = async (n: string) =>
    createHash('sha256')
      .update(await readFile(join(folder, n)))
      .digest('hex');
  return new Map(await Promise.all(names.map(async (n) => [n, await digest(n)] as const)));
}

/** The `event` of each whole line of a JSON log. */
const eventsOf = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.endsWith('}'))
    .map((l) => (JSON.parse(l) as { event: string }).event);

/** The folders in `out` besides `latest`, the snapshot before and the staging: those of an interrupted run. */
async function otherFolders(): Promise<string[]> {
  return (await readdir(out)).filter((n) => !['latest', before.latest, '.img-etl-staging'].includes(n));
}

/** The names in the interrupted run's pending folder, or undefined when it has none. */
async function pendingNames(): Promise<string[] | undefined> {
  const [folder] = await otherFolders();
  if (folder === undefined) return undefined;
  return readdir(join(out, folder, '.img-etl-publish')).catch(() => undefined);
}

/**
 * Runs the CLI, stops it on the first log line of event `at`, checks `inPhase` on its log so far while it is stopped,
 * sends it `signal` and lets it go on; resolves to how it ended and its whole log.
 */
async function interruptAt(at: string, signal: NodeJS.Signals, inPhase: (events: string[]) => Promise<void>) {
  const child = spawn(process.execPath, cliArgv(args()), { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let caught: Promise<void> | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    log += chunk.toString();
    if (caught === undefined && eventsOf(log).includes(at)) {
      child.kill('SIGSTOP');
      caught = (async () => {
        try {
          await inPhase(eventsOf(log));
        } finally {
          child.kill(signal);
          child.kill('SIGCONT');
        }
      })();
      caught.catch(() => undefined); // awaited once the run has ended
    }
  });
  const end = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('close', (code, sig) => resolve({ code, signal: sig })),
  );
  expect(caught, `the run never logged ${at}`).toBeDefined();
  await caught;
  return { ...end, events: eventsOf(log), last: log.trim().split('\n').at(-1)! };
}

/** What every interrupted run leaves: exit 130, its pages kept, `latest` and the snapshot before untouched. */
async function expectInterrupted(run: Awaited<ReturnType<typeof interruptAt>>): Promise<void> {
  expect(run.signal).toBeNull();
  expect(run.code).toBe(130);
  const last = JSON.parse(run.last) as { event: string; message: string; pages_kept: number };
  expect(last).toMatchObject({ event: 'interrupted' });
  expect(last.message).toContain('run the same command again to resume');
  expect(last.pages_kept).toBeGreaterThan(0);
  expect(await readlink(join(out, 'latest'))).toBe(before.latest);
  expect(await filesOf(join(out, before.latest))).toEqual(before.files);
  expect(await otherFolders()).toEqual([]);
}

describe('a --snapshot run interrupted before it publishes', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops while it pages the list on %s', async (signal) => {
    const run = await interruptAt('page', signal, async (events) => {
      expect(events).not.toContain('publish-start');
      expect(await pendingNames()).toEqual([]); // made before the list is paged, empty until the run writes
    });
    expect(run.events).not.toContain('publish-start');
    await expectInterrupted(run);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops while it writes the data files on %s', async (signal) => {
    const run = await interruptAt('publish-progress', signal, async (events) => {
      expect(events).not.toContain('publish-end');
      const names = await pendingNames();
      expect(names?.some((n) => n.startsWith('.images.parquet.tmp-'))).toBe(true); // being written
      expect(names).not.toContain('images.parquet');
    });
    expect(run.events).not.toContain('publish-end');
    await expectInterrupted(run);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops while it draws the report on %s', async (signal) => {
    const run = await interruptAt('publish-end', signal, async () => {
      const names = await pendingNames();
      expect(names).toEqual(expect.arrayContaining(['images.parquet', 'images.csv', 'collections.parquet']));
      expect(names).not.toContain('report.html');
      expect(names).not.toContain('manifest.json');
    });
    await expectInterrupted(run);
  });

  it('the same command then resumes: no page of the list fetched again, the files as the snapshot before', async () => {
    const listRequests = service.stats.listRequests;
    const run = await runCli(args());
    expect(run.code, run.stderr).toBe(0);
    expect(service.stats.listRequests - listRequests).toBe(0);
    const latest = await readlink(join(out, 'latest'));
    expect(latest).not.toBe(before.latest);
    const now = await filesOf(join(out, latest));
    for (const name of ['images.parquet', 'images.csv', 'images.index', 'collections.parquet', 'collections.csv'])
      expect(now.get(name), name).toBe(before.files.get(name));
    const report = await readFile(join(out, latest, 'report.html'), 'utf8');
    expect(report).toContain(`<title>${LONG_MAP_TYPE}: 1 (`);
  });
});
