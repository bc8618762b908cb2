/**
 * Issue 4: a run killed with SIGKILL at several points, or stopped with Ctrl-C, resumes with the same command:
 * pages already fetched are not fetched again, and the files equal an uninterrupted run's.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, JournalPage } from '../../src/extract/checkpoint.js';
import type { RunningService } from '../../src/service/index.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { CLI, runCli } from '../helpers/run-cli.js';

let service: RunningService;
let reference: string;
const dirs: string[] = [];
const args = (out: string) => [
  '--base-url',
  service.url,
  '--out',
  out,
  '--to',
  'parquet,csv',
  '--page-size',
  '40',
  '--concurrency',
  '2',
];
const PAGES = Math.ceil(1259 / 40);

beforeAll(async () => {
  // Slow enough that a run can be caught in the middle: two workers, 15 ms a page.
  service = await startFixtureService({ records: 1200, seed: 21, faults: { workers: 2, pageLatencyMs: 15 } });
  reference = await tempDir();
  const run = await runCli(args(reference));
  expect(run.code).toBe(0);
});

afterAll(async () => {
  await service?.close();
  for (const dir of [reference, ...dirs]) await removeDir(dir);
});

/** Lines of the staging journal so far. */
async function journal(out: string): Promise<string[]> {
  const text = await readFile(join(out, '.img-etl-staging', 'journal.ndjson'), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.endsWith('}'));
}

/** Starts the CLI and sends `signal` once `ready(journal lines)` holds; resolves to the exit code and stderr. */
async function interrupt(
  out: string,
  ready: (lines: string[]) => boolean,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: string | null; stderr: string; staged: number; imagePages: number }> {
  const child = spawn(process.execPath, [CLI, ...args(out)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // 'close', not 'exit': stderr is read after it, and a process can exit before its pipes have given all it wrote.
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('close', (code, sig) => resolve({ code, signal: sig })),
  );
  for (let i = 0; i < 4000; i++) {
    const lines = await journal(out);
    if (ready(lines)) {
      child.kill(signal);
      break;
    }
    await sleep(2);
  }
  const end = await exited;
  const lines = await journal(out);
  const staged = lines.filter((l) => /^\{"type":"(?:page|collections-page|collection-page)"/.test(l)).length;
  return { ...end, stderr, staged, imagePages: lines.filter((l) => l.startsWith('{"type":"page"')).length };
}

/** Staged pages of the image list in a journal. */
const imagePages = (lines: string[]) => lines.filter((l) => l.startsWith('{"type":"page"')).length;

/** Valid records on the staged pages of a journal (those a resume may sample). */
function stagedRecords(lines: string[]): number {
  const pages = lines.map((l) => JSON.parse(l) as JournalEntry).filter((e) => e.type === 'page' && e.file !== null);
  return pages.reduce((n, e) => n + (e as JournalPage).ids.filter((id) => id !== null).length, 0);
}

async function expectSameAsReference(out: string): Promise<void> {
  expect(await readFile(join(out, 'images.csv'))).toEqual(await readFile(join(reference, 'images.csv')));
  expect(await readParquetRows(out)).toEqual(await readParquetRows(reference));
  const files = ['collections.csv', 'collections.parquet', 'images.csv', 'images.parquet', 'manifest.json'];
  expect((await readdir(out)).sort()).toEqual(files);
  expect(existsSync(join(out, '.img-etl-staging'))).toBe(false);
}

describe('resume', () => {
  it.each([
    ['after the first page', (lines: string[]) => imagePages(lines) >= 1],
    ['in the middle of the pass', (lines: string[]) => imagePages(lines) >= Math.floor(PAGES / 2)],
    ['after the last page, while publishing', (lines: string[]) => lines.some((l) => l.includes('"type":"pass-end"'))],
  ])('SIGKILL %s, then the same command: nothing fetched twice, files equal an uninterrupted run', async (_, ready) => {
    const out = await tempDir();
    dirs.push(out);
    const killed = await interrupt(out, ready, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const sampled = Math.min(20, stagedRecords(await journal(out)));
    service.resetStats();
    const resumed = await runCli(args(out));
    expect(resumed.code).toBe(0);
    // Each page not staged before the kill is fetched exactly once, and no staged page again; before resuming, a
    // sample of the staged records is fetched again by id to check the service still holds them.
    expect(service.stats.listRequests).toBe(PAGES - killed.imagePages);
    expect(service.stats.detailRequests).toBe(sampled);
    await expectSameAsReference(out);
  });

  it('Ctrl-C stops cleanly with exit code 130 and says how to resume; the same command then finishes', async () => {
    const out = await tempDir();
    dirs.push(out);
    const stopped = await interrupt(out, (lines) => lines.length >= 5, 'SIGINT');
    expect(stopped.code).toBe(130);
    expect(stopped.stderr.trim().split('\n').at(-1)).toBe(
      `img-etl: interrupted; ${stopped.staged} pages are kept in ` +
        `${join(out, '.img-etl-staging')}: run the same command again to resume`,
    );
    expect(await readdir(out)).toEqual(['.img-etl-staging']);
    const resumed = await runCli(args(out));
    expect(resumed.code).toBe(0);
    await expectSameAsReference(out);
  });

  it('refuses to resume staging of another source, and --fresh discards it', async () => {
    const out = await tempDir();
    dirs.push(out);
    await interrupt(out, (lines) => lines.length >= 2, 'SIGKILL');
    const other = await runCli(['--base-url', 'http://127.0.0.1:9', '--out', out]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`holds an unfinished run of ${service.listUrl} with page size 40`);
    const fresh = await runCli([...args(out), '--fresh']);
    expect(fresh.code).toBe(0);
    await expectSameAsReference(out);
  });
});
