/**
 * Issue 12: a snapshot people can rely on unattended. Each case is a way a run could say something false, mix two
 * runs or delete what is not its own; each runs the real CLI over loopback HTTP on a real file system.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { lstat, mkdir, readFile, readdir, readlink, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareRejectKeys } from '../../src/extract/staging/record-index.js';
import { rejectKey } from '../../src/extract/staging/save-page.js';
import type { SummaryDocument } from '../../src/cli/printing/summary.js';
import type { CheckpointIdentity } from '../../src/extract/staging/staging-identity.js';
import type { Reject } from '../../src/schema/row.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { expectedRow, expectRowsMatch, type Expected } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { madeRecords, startListServer } from '../helpers/list-server.js';
import { runAsCli } from '../helpers/library-run.js';
import { expectedRowsOf, readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { cliArgv, runCliHere } from '../helpers/run-cli.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { readManifest } from '../helpers/read-manifest.js';

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

describe('completeness counts distinct records', () => {
  it(
    'records without a usable id are counted once, written to rejects.ndjson once, and a ' + 'short list exits 3',
    async () => {
      const valid = madeRecords(96);
      const bad = [
        { ...valid[0], id: 'abc' },
        { ...valid[1], id: null },
        { ...valid[2], id: 1.5 },
        { ...valid[3], id: 2 ** 60 },
      ];
      const records = [...valid];
      bad.forEach((record, i) => records.splice(10 + 20 * i, 0, record as Record<string, unknown>));
      server = await startListServer(records, { count: 102 }); // two records counted are never sent
      const run = await runCliHere([
        '--base-url',
        server.origin,
        '--out',
        out,
        '--page-size',
        '25',
        '--max-passes',
        '3',
      ]);
      expect(run.code).toBe(3);
      expect(await manifestOf()).toMatchObject({
        complete: false,
        expected: 102,
        received: 100,
        missing: 2,
        rejects: 4,
        records_written: 96,
      });
      const rejects = (await readFile(join(out, 'rejects.ndjson'), 'utf8')).trim().split('\n');
      // In the order of their keys (issue 25: the rejects file depends only on the records): here content hashes.
      const inKeyOrder = [...bad].sort((a, b) => compareRejectKeys(rejectKey(a), rejectKey(b)));
      expect(rejects.map((line) => JSON.stringify((JSON.parse(line) as Reject).record))).toEqual(
        inKeyOrder.map((r) => JSON.stringify(r)),
      );
      expectRowsMatch(await readParquetRows(out), expectedOf(valid));
    },
  );

  it('a page of more than 4,096 records is kept and written, and a rerun is not broken by it', async () => {
    const records = madeRecords(5_000);
    server = await startScriptedServer((req, res) =>
      sendJson(res, { count: records.length, next: null, previous: null, results: records }),
    );
    const run = await runCliHere(['--base-url', server.origin, '--out', out, '--to', 'parquet', '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectRowsMatch(await readParquetRows(out), expectedOf(records));
  });
});

describe('a record served twice with different content', () => {
  it('keeps the copy newer by modify_date (the later seen on a tie) and reports each conflict', async () => {
    const made = madeRecords(10, 1);
    const at = (id: number, name: string, modified: string) => ({ ...made[id - 1]!, name, modify_date: modified });
    const [fiveOld, fiveNew] = [
      at(5, 'five old', '2020-01-01T10:00:00.000001+01:00'),
      at(5, 'five new', '2021-06-01T10:00:00+02:00'),
    ];
    const [sixA, sixB] = [
      at(6, 'six a', '2021-06-01T10:00:00+02:00'),
      at(6, 'six b, older', '2019-06-01T10:00:00+02:00'),
    ];
    const firstLook = [...made.slice(0, 4), fiveOld, fiveNew, sixA, ...made.slice(6, 9)];
    const secondLook = [...made.slice(0, 4), fiveNew, sixB, ...made.slice(6, 10)];
    server = await startListServer([], { records: (_, asked) => (asked === 1 ? firstLook : secondLook) });
    const run = await runCliHere(['--base-url', server.origin, '--out', out, '--page-size', '5']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'img-etl: 2 records came back changed while the list was paged (id 5, 6); the copy newer by modify_date is kept',
    );
    expect(await manifestOf()).toMatchObject({
      complete: true,
      received: 10,
      conflicts: { count: 2, first_ids: [5, 6] },
    });
    expectRowsMatch(await readParquetRows(out), expectedOf([...made.slice(0, 4), fiveNew, sixA, ...made.slice(6)]));
  });
});

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

describe('the output folder holds one run', () => {
  it(
    'files an earlier run wrote that this run does not are removed; a file img-etl did ' + 'not write is kept',
    async () => {
      service = await startFixtureService({ records: 50, seed: 3 });
      const user = join(out, 'images.arrow'); // the user's own file, before any img-etl run here
      await writeFile(user, 'mine');
      expect((await runCliHere(['--base-url', service.url, '--out', out, '--to', 'parquet,csv'])).code).toBe(0);
      const csvRun = ['collections.csv', 'collections.parquet', 'images.arrow', 'images.csv', 'images.parquet'];
      expect((await readdir(out)).sort()).toEqual([...csvRun, 'manifest.json']);
      expect((await runCliHere(['--base-url', service.url, '--out', out, '--to', 'parquet'])).code).toBe(0);
      const parquetRun = ['collections.parquet', 'images.arrow', 'images.parquet', 'manifest.json'];
      expect((await readdir(out)).sort()).toEqual(parquetRun);
      expect(await readFile(user, 'utf8')).toBe('mine');
      const names = (await manifestOf()).files.map((f: { name: string }) => f.name);
      expect(names).toEqual(['images.parquet', 'collections.parquet']);
    },
  );
});

describe('files img-etl did not write', () => {
  it('a file named as one the run writes stops it before a request, one line, the file untouched', async () => {
    server = await startListServer(madeRecords(10));
    const theirs: [string, string][] = [
      ['images.parquet', 'my own parquet'],
      ['manifest.json', '{"name": "my web app"}'],
    ];
    for (const [name, text] of theirs) {
      const dir = join(out, name.replace('.', '-'));
      await mkdir(dir);
      await writeFile(join(dir, name), text);
      const run = await runCliHere(['--base-url', server.origin, '--out', dir, '--to', 'parquet,csv']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `img-etl: load: cannot publish ${join(dir, name)}: a file img-etl did not write is in the way ` +
          '(move it, or choose another --out)\n',
      );
      expect(await readFile(join(dir, name), 'utf8')).toBe(text);
      expect((await readdir(dir)).filter((n) => !n.startsWith('.img-etl-'))).toEqual([name]);
    }
    expect(server.requests).toEqual([]);
  });

  it('a file where the run would make its pending folder: one line naming it before a request, untouched', async () => {
    server = await startListServer(madeRecords(10));
    const pending = join(out, '.img-etl-publish');
    await writeFile(pending, 'not a folder');
    const run = await runCliHere(['--base-url', server.origin, '--out', out, '--quiet']);
    expect([run.code, run.stderr]).toEqual([
      1,
      `img-etl: load: cannot create folder ${pending}: a file is in the way\n`,
    ]);
    expect(await readFile(pending, 'utf8')).toBe('not a folder');
    expect(server.requests).toEqual([]);
  });

  it('a file the previous run did not list is refused, also one only known at the end (rejects.ndjson)', async () => {
    const records = madeRecords(10);
    server = await startListServer(records);
    const args = ['--base-url', server.origin, '--out', out, '--to', 'parquet', '--quiet'];
    // The previous run, read by the runs below: taken by the library as the CLI takes it with args.
    expect((await runAsCli({ baseUrl: server.origin, outDir: out })).manifest.complete).toBe(true);
    await writeFile(join(out, 'images.csv'), 'my csv');
    const refusal = (name: string) =>
      `img-etl: load: cannot publish ${join(out, name)}: a file img-etl did not write is in the way ` +
      '(move it, or choose another --out)\n';
    const csv = await runCliHere([...args, '--to', 'csv']);
    expect([csv.code, csv.stderr]).toEqual([1, refusal('images.csv')]);

    await writeFile(join(out, 'rejects.ndjson'), 'my rejects');
    records.push({ ...records[0], id: 'abc' }); // a reject: this run writes rejects.ndjson
    const rejects = await runCliHere(args);
    expect([rejects.code, rejects.stderr]).toEqual([1, refusal('rejects.ndjson')]);
    expect(await readFile(join(out, 'images.csv'), 'utf8')).toBe('my csv');
    expect(await readFile(join(out, 'rejects.ndjson'), 'utf8')).toBe('my rejects');
    expect((await manifestOf()).records_written).toBe(10);
  });

  it("a staging folder linked to a scratch folder of the user's: other files untouched, fresh or not", async () => {
    let failing = true; // the first run stops at offset 20, its pages staged in the scratch folder
    server = await startListServer(madeRecords(30), { fail: (offset) => (failing && offset >= 20 ? 404 : undefined) });
    const scratch = join(out, 'scratch');
    await mkdir(scratch);
    await writeFile(join(scratch, 'thesis.txt'), 'years of work');
    const dir = join(out, 'snap');
    await mkdir(dir);
    await symlink(scratch, join(dir, '.img-etl-staging'));
    const args = ['--base-url', server.origin, '--out', dir, '--page-size', '10', '--quiet'];
    expect((await runCliHere(args)).code).toBe(1);
    expect((await readdir(scratch)).sort()).toEqual([
      'journal.ndjson',
      'p1-0-10.arrow',
      'p1-0-10.json',
      'p1-10-10.arrow',
      'p1-10-10.json',
      'run.json',
      'thesis.txt',
    ]);
    failing = false;
    expect((await runCliHere([...args, '--fresh'])).code).toBe(0);
    expect(requestsFor(0)).toBe(2);
    expect(await readdir(scratch)).toEqual(['thesis.txt']); // img-etl's staged files removed, the user's kept
    expect(await readFile(join(scratch, 'thesis.txt'), 'utf8')).toBe('years of work');
    expect((await lstat(join(dir, '.img-etl-staging'))).isSymbolicLink()).toBe(true);
    expectRowsMatch(await readParquetRows(dir), expectedOf(madeRecords(30)));
  });

  it('a latest that is not a link img-etl made is never replaced', async () => {
    server = await startListServer(madeRecords(10));
    const elsewhere = join(out, 'elsewhere');
    await mkdir(elsewhere);
    for (const make of [
      (latest: string) => writeFile(latest, 'my notes'),
      (latest: string) => symlink(elsewhere, latest),
    ]) {
      const dir = join(out, `snapshots-${(await readdir(out)).length}`);
      await mkdir(dir);
      const latest = join(dir, 'latest');
      await make(latest);
      const before = (await lstat(latest)).isSymbolicLink() ? await readlink(latest) : await readFile(latest, 'utf8');
      const run = await runCliHere(['--base-url', server.origin, '--out', dir, '--snapshot']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `img-etl: snapshot: cannot point ${latest} at a snapshot: it is not a link img-etl made ` +
          '(move it, or choose another --out)\n',
      );
      const after = (await lstat(latest)).isSymbolicLink() ? await readlink(latest) : await readFile(latest, 'utf8');
      expect(after).toBe(before);
    }
    expect(server.requests).toEqual([]);
  });
});

describe('--keep', () => {
  it(
    'deletes only snapshot folders img-etl wrote, counts complete ones, and prunes ' +
      'incomplete ones older than the newest complete',
    async () => {
      const records = madeRecords(30);
      let count = 30;
      server = await startListServer(records, { count: () => count });
      const thesis = join(out, '20200101T000000.000Z');
      await mkdir(thesis);
      await writeFile(join(thesis, 'thesis.docx'), 'years of work');
      const snap = (...extra: string[]) =>
        runCliHere([
          '--base-url',
          server!.origin,
          '--out',
          out,
          '--snapshot',
          '--keep',
          '1',
          '--max-passes',
          '1',
          ...extra,
        ]);
      expect((await snap()).code).toBe(0);
      const [first] = (await readdir(out)).filter((n) => n.startsWith('2026') || n > '2021');
      count = 31; // one record never sent: an incomplete snapshot
      expect((await snap()).code).toBe(3);
      count = 30;
      const last = await snap('--summary', 'json');
      expect(last.code).toBe(0);
      const pruned = (JSON.parse(last.stdout) as SummaryDocument).pruned!;
      expect(pruned.map((p) => [p.complete, p.reason])).toEqual([
        [true, 'beyond the newest 1 complete'],
        [false, 'incomplete, older than the newest complete snapshot'],
      ]);
      expect(pruned[0]!.name).toBe(first);
      const left = (await readdir(out)).sort();
      expect(left).toHaveLength(3);
      expect(left[0]).toBe('20200101T000000.000Z');
      expect(await readFile(join(thesis, 'thesis.docx'), 'utf8')).toBe('years of work');
      expect(left.at(-1)).toBe('latest');
    },
  );
});

describe('--keep and files of the user inside a snapshot folder', () => {
  it("deletes the files img-etl wrote there and keeps the folder with the user's files, saying so", async () => {
    server = await startListServer(madeRecords(10));
    const snap = (...extra: string[]) =>
      runCliHere(['--base-url', server!.origin, '--out', out, '--snapshot', '--quiet', '--summary', 'json', ...extra]);
    // The first snapshot, pruned by the runs below: taken by the library as the CLI takes it with snap()'s arguments.
    expect((await runAsCli({ baseUrl: server.origin, outDir: out, snapshot: true })).manifest.complete).toBe(true);
    const [first] = await readdir(out);
    await writeFile(join(out, first!, 'analysis.ipynb'), 'my notebook');
    const second = await snap('--keep', '1');
    expect(second.code).toBe(0);
    const pruned = (JSON.parse(second.stdout) as SummaryDocument).pruned!;
    expect(pruned).toEqual([
      {
        name: first,
        complete: true,
        reason: 'beyond the newest 1 complete; the folder stays for the files img-etl did not write in it',
      },
    ]);
    expect(await readdir(join(out, first!))).toEqual(['analysis.ipynb']);
    expect(await readFile(join(out, first!, 'analysis.ipynb'), 'utf8')).toBe('my notebook');
    const [, secondName] = (await readdir(out)).sort();
    const third = await snap('--keep', '1'); // the first folder is no longer a snapshot: left alone
    expect(third.code).toBe(0);
    expect((JSON.parse(third.stdout) as SummaryDocument).pruned?.map((p) => p.name)).toEqual([secondName]);
    expect(await readdir(join(out, first!))).toEqual(['analysis.ipynb']);
  });
});
