/**
 * A run finishes with every record or says exactly what it lacks, under the bundled service's faults (errors and
 * broken connections, records inserted and deleted while it pages, an unstable row order); completeness counts
 * distinct records, so a record skipped in every pass is never made up for by a deletion evening the count, and a
 * record served twice is written once. The real CLI over loopback HTTP.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareRejectKeys } from '../../../src/extract/staging/record-index.js';
import { rejectKey } from '../../../src/extract/staging/save-page.js';
import type { Reject } from '../../../src/schema/row.js';
import type { RunningService } from '../../../src/service/index.js';
import { expectedRow, expectRowsMatch, type Expected } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

let out: string;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await removeDir(out);
});

const FAST_RETRIES = ['--retry-delay', '0.02', '--max-attempts', '10'];
const manifestOf = () => readManifest(out);

describe('completeness under faults', () => {
  it(
    '10% 500s, 5% 502s, 5% 429s, 3% truncated bodies and 3% resets still yield the ' + 'complete, exact snapshot',
    async () => {
      service = await startFixtureService({
        records: 1500,
        seed: 11,
        faults: {
          rate500: 0.1,
          rate502: 0.05,
          rate429: 0.05,
          rateTruncate: 0.03,
          rateReset: 0.03,
          retryAfterSeconds: 1,
          faultSeed: 5,
        },
      });
      const run = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--page-size',
        '50',
        '--concurrency',
        '4',
        ...FAST_RETRIES,
      ]);
      expect(run.code).toBe(0);
      const stats = service.stats;
      // The faults really happened (guards against a test that passes because nothing failed).
      expect(stats.faults['500'] ?? 0).toBeGreaterThan(0);
      expect(
        (stats.faults['429'] ?? 0) +
          (stats.faults['502'] ?? 0) +
          (stats.faults['truncate'] ?? 0) +
          (stats.faults['reset'] ?? 0),
      ).toBeGreaterThan(0);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({
        complete: true,
        missing: 0,
        expected: 1559,
        received: 1559,
        records_written: 1559,
      });
      expect(manifest.retries).toBeGreaterThan(0);
      expectRowsMatch(await readParquetRows(out), expectedRowsOf(service, service.servedIds()));
      expect((await readdir(out)).sort()).toEqual(['collections.parquet', 'images.parquet', 'manifest.json']);
    },
  );

  it(
    'records inserted and deleted while it pages: every record that existed for the ' + 'whole run, once, exact',
    async () => {
      service = await startFixtureService({
        records: 1200,
        seed: 12,
        faults: { insertRate: 0.3, insertCount: 3, deleteRate: 0.3, deleteCount: 3, faultSeed: 9 },
      });
      const run = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--page-size',
        '50',
        '--concurrency',
        '2',
        ...FAST_RETRIES,
      ]);
      const rows = await readParquetRows(out);
      const ids = rows.map((r) => Number(r['id']));
      expect(new Set(ids).size).toBe(ids.length);
      expect(service.dataset.insertedIds().length).toBeGreaterThan(0);
      expect(service.dataset.deletedIds().length).toBeGreaterThan(0);
      const have = new Set(ids);
      const lost = service.dataset.stableIds().filter((id) => !have.has(id));
      expect(lost).toEqual([]);
      // Whatever else it holds was served at some time: an initial or an inserted record.
      const everServed = new Set([...service.dataset.initialIds(), ...service.dataset.insertedIds()]);
      expect(ids.filter((id) => !everServed.has(id))).toEqual([]);
      expectRowsMatch(rows, expectedRowsOf(service, ids));
      const manifest = await manifestOf();
      // One pass over the list; the collections whose images changed meanwhile, or came up short, are read in id order.
      expect(manifest.passes).toHaveLength(1);
      expect(manifest.completeness.reconciled.length).toBeGreaterThan(0);
      expect(manifest).toMatchObject({ complete: true, missing: 0 });
      expect(run.code).toBe(0);
    },
  );

  it('an unstable row order completes with exit code 0, never with duplicates', async () => {
    service = await startFixtureService({
      records: 1500,
      seed: 13,
      faults: { unstableOrderRate: 0.5, unstableOrderMode: 'rotate', faultSeed: 3 },
    });
    const run = await runCliHere([
      '--base-url',
      service.url,
      '--out',
      out,
      '--page-size',
      '50',
      '--concurrency',
      '3',
      ...FAST_RETRIES,
    ]);
    const manifest = await manifestOf();
    const rows = await readParquetRows(out);
    const ids = rows.map((r) => Number(r['id']));
    expect(new Set(ids).size).toBe(ids.length);
    expectRowsMatch(rows, expectedRowsOf(service, ids));
    expect(manifest.passes[0]?.clean).toBe(false);
    expect(manifest.complete).toBe(true);
    expect(run.code).toBe(0);
    expect(new Set(ids)).toEqual(new Set(service.servedIds()));
  });

  it(
    '--max-missing lets a run with a few missing records exit 0 while the manifest still ' + 'says incomplete',
    async () => {
      service = await startFixtureService({ records: 300, seed: 14, faults: { orphanRate: 0.02, faultSeed: 2 } });
      const orphans = service.dataset.ids().filter((id) => service!.isOrphan(id)).length;
      expect(orphans).toBeGreaterThan(0);
      const strict = await runCliHere(['--base-url', service.url, '--out', out, ...FAST_RETRIES]);
      expect(strict.code).toBe(3);
      const lenient = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--max-missing',
        String(orphans),
        ...FAST_RETRIES,
      ]);
      expect(lenient.code).toBe(0);
      expect(await manifestOf()).toMatchObject({ complete: false, missing: orphans });
    },
  );

  it('a service that answers 500 to every page (an outage) fails the run after the first page, unsplit', async () => {
    service = await startFixtureService({
      records: 240,
      seed: 15,
      collectionEndpoints: false,
      faults: { plan: ({ url }) => (url.startsWith('/api/images/') ? '500' : undefined) },
    });
    const args = ['--base-url', service.url, '--out', out, '--page-size', '50', '--concurrency', '1'];
    const run = await runCliHere([...args, '--max-attempts', '2', '--retry-delay', '0.01']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(
      /^img-etl: extract: GET \S+\/api\/images\/\?limit=50&offset=0 returned 500/,
    );
    // the first page and a page of no record, twice each; splitting the first page would ask 99 pages twice each
    expect(service.stats.listRequests).toBeLessThanOrEqual(4);
  });

  it('an outage after the first pages fails the run without splitting the pages it cannot serve', async () => {
    let served = 0; // list requests answered before the outage
    service = await startFixtureService({
      records: 240,
      seed: 15,
      collectionEndpoints: false,
      faults: { plan: ({ url }) => (url.startsWith('/api/images/') && served++ >= 2 ? '500' : undefined) },
    });
    const args = ['--base-url', service.url, '--out', out, '--page-size', '50', '--concurrency', '1'];
    const run = await runCliHere([...args, '--max-attempts', '2', '--retry-delay', '0.01']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(
      /^img-etl: extract: GET \S+\/api\/images\/\?limit=50&offset=100 /,
    );
    // two pages, then the third and a page of no record, twice each; splitting it would ask 99 pages twice each
    expect(service.stats.listRequests).toBeLessThanOrEqual(6);
  });

  // 3 and 49: on the list's first page, which tells the run the count and page size (it was not split: exit 1);
  // 49 is its last record, whose part of the split gives no count.
  it.each([137, 3, 49])(
    'a page the server cannot serve (a bad record at offset %i) is split until only that record is skipped, and its ' +
      'offset reported',
    async (bad) => {
      let poisoned = -1;
      // Without the collection endpoints: with them, the record is found through its collection (see
      // reconcile.test.ts).
      service = await startFixtureService({
        records: 240,
        seed: 15,
        collectionEndpoints: false,
        faults: {
          plan: ({ url }) => {
            const u = new URL(url, 'http://x');
            const offset = Number(u.searchParams.get('offset') ?? 0);
            const limit = Number(u.searchParams.get('limit') ?? 100);
            return offset <= poisoned && poisoned < offset + limit ? '500' : undefined;
          },
        },
      });
      poisoned = bad;
      const badId = service.dataset.idAt(poisoned);
      const run = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--page-size',
        '50',
        '--max-attempts',
        '2',
        '--retry-delay',
        '0.01',
      ]);
      expect(run.code, run.stderr).toBe(3);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({ skipped_offsets: [bad], missing: 1, records_written: 298 });
      expect(run.stderr).toContain(`skipped the record at offset ${bad}`);
      const ids = (await readParquetRows(out)).map((r) => Number(r['id']));
      expect(ids).not.toContain(badId);
    },
  );
});

describe('a record skipped in every pass', () => {
  let out: string;
  let service: RunningService | undefined;
  beforeEach(async () => {
    out = await tempDir();
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    await removeDir(out);
  });

  it('a record skipped in every pass, another deleted after it was read: the run is incomplete', async () => {
    let badId = -1;
    let deleted = false;
    service = await startFixtureService({
      records: 240,
      seed: 15,
      collectionEndpoints: false,
      faults: {
        plan: ({ url }) => {
          const u = new URL(url, 'http://x');
          const offset = Number(u.searchParams.get('offset') ?? 0);
          const limit = Number(u.searchParams.get('limit') ?? 100);
          if (!deleted && offset >= 100) {
            deleted = true;
            service!.dataset.deleteId(service!.dataset.idAt(10)); // read already, on the first page
          }
          const at = service!.dataset.ids().indexOf(badId);
          return at >= offset && at < offset + limit ? '500' : undefined;
        },
      },
    });
    badId = service.dataset.idAt(137);
    const run = await runCliHere([
      '--base-url',
      service.url,
      '--out',
      out,
      '--page-size',
      '50',
      '--max-attempts',
      '2',
      '--retry-delay',
      '0.01',
    ]);
    const manifest = await readManifest(out);
    const ids = (await readParquetRows(out)).map((r) => Number(r['id']));
    expect(ids).not.toContain(badId);
    expect(manifest).toMatchObject({ complete: false, missing: 1, skipped_offsets: [136] });
    expect(run.code).toBe(3);
  });

  it('a resumed run keeps the records an earlier process skipped: incomplete, their offsets listed', async () => {
    const records = madeRecords(20);
    const bad = 7; // answers 500 whenever a request's range holds it: skipped alone
    let failing = true;
    const server = await startScriptedServer((req, res, origin) => {
      const url = new URL(req.url ?? '/', origin);
      const detail = /^\/api\/images\/(\d+)\/$/.exec(url.pathname);
      if (detail !== null) {
        const record = records.find((r) => r['id'] === Number(detail[1]));
        return record === undefined ? sendJson(res, { detail: 'Not found.' }, 404) : sendJson(res, record);
      }
      if (url.pathname !== '/api/images/') return sendJson(res, { detail: 'Not found.' }, 404);
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      // The first run stops at offset 10 (a 404), after the page holding the bad record is staged.
      if (failing && offset === 10) return sendJson(res, { detail: 'scripted failure' }, 404);
      if (offset <= bad && bad < offset + limit) return sendJson(res, { detail: 'scripted failure' }, 500);
      // The service counts 19: the bad record's place is made up by the count (a record deleted after it was read).
      const count = 19;
      const next = offset + limit < count ? `${origin}/api/images/?limit=${limit}&offset=${offset + limit}` : null;
      sendJson(res, { count, next, previous: null, results: records.slice(offset, offset + limit) });
    });
    try {
      const args = ['--base-url', server.origin, '--out', out, '--page-size', '5', '--concurrency', '1'];
      const retries = ['--max-attempts', '2', '--retry-delay', '0.01'];
      const first = await runCliHere([...args, ...retries]);
      expect(first.code, first.stderr).toBe(1);
      const journal = await readFile(join(out, '.img-etl-staging', 'journal.ndjson'), 'utf8');
      const offsets = journal
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; offset?: number })
        .filter((e) => e.type === 'page')
        .map((e) => e.offset);
      expect(offsets).toEqual([0, 5]);
      failing = false;
      const rerun = await runCliHere([...args, ...retries]);
      expect(await readManifest(out)).toMatchObject({ complete: false, missing: 1, skipped_offsets: [bad] });
      expect(rerun.code, rerun.stderr).toBe(3);
    } finally {
      await server.close();
    }
  });
});

describe('distinct records', () => {
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
        // In the order of their keys (the rejects file depends only on the records): here content hashes.
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
        'img-etl: 2 records came back changed while the list was paged (id 5, 6); ' +
          'the copy newer by modify_date is kept',
      );
      expect(await manifestOf()).toMatchObject({
        complete: true,
        received: 10,
        conflicts: { count: 2, first_ids: [5, 6] },
      });
      expectRowsMatch(await readParquetRows(out), expectedOf([...made.slice(0, 4), fiveNew, sixA, ...made.slice(6)]));
    });
  });
});
