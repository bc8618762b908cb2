/**
 * What a resumed run trusts of the staging an earlier run left: a staged page cut short or gone is fetched again,
 * staging older than --max-resume-age or of another source is not resumed, and a resume checks that the service still
 * holds what was staged. The real CLI over loopback HTTP on a real file system.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckpointIdentity } from '../../../src/extract/staging/staging-identity.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { expectedRow, expectRowsMatch, type Expected } from '../../helpers/expected-row.js';
import { runAsCli } from '../../helpers/library-run.js';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { cliArgv, runCliHere } from '../../helpers/run-cli.js';
import { type ScriptedServer } from '../../helpers/scripted-server.js';

let out: string;
let server: ScriptedServer | undefined;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await server?.close();
  await service?.close();
  server = service = undefined;
  await removeDir(out);
});

const manifestOf = (dir = out) => readManifest(dir);
const expectedOf = (records: readonly Record<string, unknown>[]) =>
  new Map<bigint, Record<string, Expected>>(records.map((r) => [BigInt(r['id'] as number), expectedRow(r)]));
/** Requests for the images list page at `offset`. */
const requestsFor = (offset: number): number => {
  const atOffset = (u: string) => new URL(u, 'http://x').searchParams.get('offset') === String(offset);
  return server!.requests.filter((u) => u.startsWith('/api/images/') && atOffset(u)).length;
};

describe('staging of an earlier run', () => {
  const records = madeRecords(100);
  const args = () => ['--base-url', server!.origin, '--out', out, '--page-size', '20', '--concurrency', '1'];
  let failing = true;
  /**
   * A first run stopped by a 404 at offset 60: pages 0, 20 and 40 are staged. It only makes the staging the CLI run
   * of each case reads: taken by the library in this process as the CLI takes it with args() (library-run.ts).
   */
  async function interruptedRun(): Promise<void> {
    failing = true;
    server = await startListServer(records, { fail: (offset) => (failing && offset >= 60 ? 404 : undefined) });
    const first = runAsCli({ baseUrl: server.origin, outDir: out, pageSize: 20, concurrency: 1 });
    await expect(first).rejects.toThrow(/offset=60 returned 404/);
    expect(existsSync(join(out, '.img-etl-staging', 'p1-0-20.json'))).toBe(true);
    failing = false;
  }

  it('a staged page cut short is dropped with a notice (by its size, unread) and fetched again', async () => {
    await interruptedRun();
    await truncate(join(out, '.img-etl-staging', 'p1-0-20.json'), 100);
    const rerun = await runCliHere(args());
    expect(rerun.stderr).toMatch(
      /img-etl: staging: 1 staged page in .* could not be read back \(p1-0-20\.json: is 100 bytes; the journal says \d+\); fetching it again/,
    );
    expect(rerun.code).toBe(0);
    expect(requestsFor(0)).toBe(2);
    expect(requestsFor(20)).toBe(1);
    expectRowsMatch(await readParquetRows(out), expectedOf(records));
  });

  it('a staged page that is gone is fetched again', async () => {
    await interruptedRun();
    await writeFile(join(out, '.img-etl-staging', 'p1-20-20.json'), '');
    const rerun = await runCliHere(args());
    expect(rerun.code).toBe(0);
    expect(requestsFor(20)).toBe(2);
    expectRowsMatch(await readParquetRows(out), expectedOf(records));
  });

  it('staging older than --max-resume-age is discarded with a notice; within it, it is resumed', async () => {
    await interruptedRun();
    const runJson = join(out, '.img-etl-staging', 'run.json');
    const identity = JSON.parse(await readFile(runJson, 'utf8')) as CheckpointIdentity;
    const twoDaysAgo = new Date(Date.now() - 48 * 3600 * 1000).toISOString();
    await writeFile(runJson, JSON.stringify({ ...identity, started_at: twoDaysAgo }));
    const old = await runCliHere(args());
    expect(old.stderr).toContain(
      `img-etl: staging: ${join(out, '.img-etl-staging')} holds a run started ${twoDaysAgo}, ` +
        `48.0 h ago, past the resume limit of 12 h; discarded it and started afresh`,
    );
    expect(old.code).toBe(0);
    expect(requestsFor(0)).toBe(2);
    expectRowsMatch(await readParquetRows(out), expectedOf(records));

    await removeDir(out);
    await server!.close();
    await interruptedRun();
    await writeFile(
      runJson,
      JSON.stringify({ ...JSON.parse(await readFile(runJson, 'utf8')), started_at: twoDaysAgo }),
    );
    const within = await runCliHere([...args(), '--max-resume-age', '72']);
    expect(within.stderr).not.toContain('discarded');
    expect(within.code).toBe(0);
    expect(requestsFor(0)).toBe(1);
  });

  it("staging of another source is refused however old it is, never discarded by this source's run", async () => {
    await interruptedRun();
    const staging = join(out, '.img-etl-staging');
    const identity = JSON.parse(await readFile(join(staging, 'run.json'), 'utf8')) as CheckpointIdentity;
    const twoDaysAgo = new Date(Date.now() - 48 * 3600 * 1000).toISOString();
    await writeFile(join(staging, 'run.json'), JSON.stringify({ ...identity, started_at: twoDaysAgo }));
    const other = await startListServer(madeRecords(10));
    try {
      const run = await runCliHere(['--base-url', other.origin, '--out', out, '--page-size', '20']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `img-etl: staging: ${staging} holds an unfinished run of ${identity.source_url} with page size 20 by ` +
          'pipeline full-snapshot; run that command again to finish it, or add --fresh to discard it\n',
      );
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
    expect(existsSync(join(staging, 'p1-20-20.json'))).toBe(true);
    const within = await runCliHere([...args(), '--max-resume-age', '72']); // its own command still resumes it
    expect(within.code).toBe(0);
    expect(requestsFor(20)).toBe(1);
  });

  it('a failure a rerun cannot fix gets no resume hint', async () => {
    await interruptedRun();
    failing = true; // the 404 stays
    const rerun = await runCliHere(args());
    expect(rerun.code).toBe(1);
    expect(rerun.stderr.trim().split('\n').at(-1)).toMatch(/offset=60 returned 404/);
    expect(rerun.stderr).not.toContain('run the same command again');
  });
});

describe('a staged page dropped on resume, and the pages without a body that repeated its records', () => {
  it('a later page that held only repeats of the dropped page is fetched again too: the rerun finishes', async () => {
    const records = madeRecords(10);
    const repeats = [...records.slice(0, 5), ...records.slice(0, 5)];
    let failing = true;
    // Pass 1: offset 5 first serves the records of offset 0 again (staged without a body: nothing new); pass 2's
    // page at offset 0 is all repeats too. The first run stops at pass 2's offset 5 (a 404).
    server = await startListServer(records, {
      records: (offset, asked) => (offset === 5 && asked === 1 ? repeats : records),
      fail: (offset, asked) => (failing && offset === 5 && asked === 2 ? 404 : undefined),
    });
    const args = ['--base-url', server.origin, '--out', out, '--page-size', '5', '--concurrency', '1'];
    // The first run only makes the staging the rerun reads: taken by the library as the CLI takes it with args.
    const first = runAsCli({ baseUrl: server.origin, outDir: out, pageSize: 5, concurrency: 1 });
    await expect(first).rejects.toThrow(/offset=5 returned 404/);
    const staging = join(out, '.img-etl-staging');
    const journal = (await readFile(join(staging, 'journal.ndjson'), 'utf8')).trim().split('\n');
    const lines = journal.map((l) => JSON.parse(l) as { type: string; pass?: number; offset?: number; file?: unknown });
    const pages = lines.filter((l) => l.type === 'page').map((l) => [l.pass, l.offset, l.file]);
    expect(pages).toEqual([
      [1, 0, 'p1-0-5.json'],
      [1, 5, null],
      [2, 0, null],
    ]);
    // The staged page of offset 0 edited on disk: the same size, other bytes.
    const page = join(staging, 'p1-0-5.json');
    const text = await readFile(page, 'utf8');
    await writeFile(page, text.replace('made 1000001', 'made 1000009'));
    failing = false;
    const rerun = await runCliHere(args);
    expect(rerun.stderr).toMatch(/could not be read back \(p1-0-5\.json: /);
    expect(rerun.stderr).not.toContain('no staged body');
    expect(rerun.code).toBe(0);
    expectRowsMatch(await readParquetRows(out), expectedOf(records));
  });
});

describe('a resume checks that the service still holds what was staged', () => {
  it(
    'a run interrupted, then the service changed, then resumed: the staging is discarded ' +
      'with a notice, not merged',
    async () => {
      service = await startService({ records: 5000, seed: 1, faults: { workers: 2, pageLatencyMs: 10 } });
      const port = Number(new URL(service.url).port);
      const args = ['--base-url', service.url, '--out', out, '--page-size', '100'];
      const child = spawn(process.execPath, cliArgv(args), { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const journal = join(out, '.img-etl-staging', 'journal.ndjson');
      while ((await readFile(journal, 'utf8').catch(() => '')).split('\n').length < 12) await sleep(5);
      child.kill('SIGKILL');
      await exited;
      await service.close();
      service = await startService({ records: 5000, seed: 2, port }); // another list at the same address
      const resumed = await runCliHere(args);
      expect(resumed.stderr).toMatch(
        /^img-etl: staging: \d+ of 20 staged records fetched again are .*; the service changed: discarded the staging and started afresh$/m,
      );
      expect(resumed.code).toBe(0);
      expect(await manifestOf()).toMatchObject({
        complete: true,
        expected: 5000,
        received: 5000,
        records_written: 5000,
      });
      const rows = await readParquetRows(out);
      expectRowsMatch(rows, expectedRowsOf(service, service.servedIds()));
    },
  );
});
