/**
 * A run killed inside the collections phases resumes inside them: a run killed with SIGKILL while it reads the
 * collections list or the own lists of the collections that came up short fetches no staged page of the image list or
 * of the collections list's read before the pass again, and what was read after the pass (the collections list again,
 * the collections' own lists) is read again, so that a run killed after its second read of the collections list and
 * resumed after the service changed holds the service as it stands at the resumed run's end. Staging dated after the
 * time now (the clock moved back) is not resumed, its age being unknown. The real CLI, the bundled service over
 * loopback HTTP.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { expectRowsMatch } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { killWhen } from '../../helpers/kill-when.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

const services: RunningService[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const service of services) await service.close();
  for (const dir of dirs) await removeDir(dir);
});

const PAGE = 10;
const args = (service: RunningService, out: string) => [
  '--base-url',
  service.url,
  '--out',
  out,
  '--page-size',
  String(PAGE),
  '--concurrency',
  '2',
];

/** The request targets (path and query) the service receives from now on. */
function recordRequests(service: RunningService): string[] {
  const targets: string[] = [];
  service.setFaults({ plan: ({ url }) => void targets.push(url) });
  service.resetStats();
  return targets;
}

const target = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function expectCompleteAndExact(service: RunningService, out: string): Promise<void> {
  const manifest = await readManifest(out);
  expect(manifest).toMatchObject({ complete: true, missing: 0 });
  const rows = await readParquetRows(out);
  const ids = rows.map((r) => Number(r['id']));
  expect(new Set(ids)).toEqual(new Set(service.servedIds()));
  expectRowsMatch(rows, expectedRowsOf(service, ids));
}

describe('resume inside the collections phases', () => {
  it(
    'SIGKILL while the collections list is paged: ' + 'the same command fetches only its pages not yet staged',
    async () => {
      const service = await startFixtureService({ records: 1200, seed: 41, faults: { workers: 2, pageLatencyMs: 50 } });
      services.push(service);
      const collectionPages = Math.ceil(service.dataset.collections.publicCount / PAGE);
      expect(collectionPages).toBeGreaterThan(2);
      const out = await tempDir();
      dirs.push(out);
      const left = await killWhen(args(service, out), out, (entries) =>
        entries.some((e) => e.type === 'collections-page'),
      );
      expect(left.some((e) => e.type === 'collections-end')).toBe(false);
      const staged = left.filter((e) => e.type === 'collections-page');
      const requests = recordRequests(service);
      const resumed = await runCliHere(args(service, out));
      expect(resumed.code).toBe(0);
      // The image list once, the collections list's pages not staged before the kill once, then the whole list again
      // after the pass (what changed while it ran), nothing else.
      expect(service.stats.listRequests).toBe(Math.ceil(service.dataset.size / PAGE));
      expect(service.stats.collectionRequests).toBe(collectionPages - staged.length + collectionPages);
      // A staged page of the read before the pass is not fetched again for it, only once by the read after the pass.
      const times = staged.map((e) => requests.filter((t) => t === target(e.url)).length);
      expect(times).toEqual(staged.map(() => 1));
      await expectCompleteAndExact(service, out);
    },
  );

  const shortKill =
    'SIGKILL while the short collections are read: the same command fetches no page of the image list again, and ' +
    'reads the collections list and their own lists again (the service may have changed since)';
  it(shortKill, async () => {
    const faults = {
      workers: 2,
      pageLatencyMs: 15,
      unstableOrderRate: 1,
      unstableOrderMode: 'rotate' as const,
      faultSeed: 8,
    };
    const service = await startFixtureService({ records: 1200, seed: 42, faults });
    services.push(service);
    const out = await tempDir();
    dirs.push(out);
    const left = await killWhen(
      args(service, out),
      out,
      (entries) => entries.filter((e) => e.type === 'collection-page').length >= 3,
    );
    const staged = left.filter((e) => e.type === 'collection-page');
    expect(staged.length).toBeGreaterThanOrEqual(3);
    const requests = recordRequests(service);
    const resumed = await runCliHere(args(service, out));
    expect(resumed.code).toBe(0);
    // The pass was done: no page of it is fetched again. The read of the collections list after it, and the
    // collections' own lists read after that, are made again: a change while the run was stopped shows in them.
    expect(service.stats.listRequests).toBe(0);
    const collectionPages = Math.ceil(service.dataset.collections.publicCount / PAGE);
    expect(requests.filter((t) => t.startsWith('/api/collections/?')).length).toBeGreaterThanOrEqual(collectionPages);
    expect(staged.map((e) => target(e.url)).filter((t) => requests.includes(t)).length).toBeGreaterThan(0);
    const manifest = await readManifest(out);
    expect(manifest.completeness.reconciliation.added).toBeGreaterThan(0);
    await expectCompleteAndExact(service, out);
  });
});

describe('a run resumed after the pass over the images', () => {
  const services: RunningService[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const service of services) await service.close();
    for (const dir of dirs) await removeDir(dir);
  });

  const args = (service: RunningService, out: string) => [
    '--base-url',
    service.url,
    '--out',
    out,
    '--page-size',
    '20',
    '--concurrency',
    '2',
  ];

  /** A service of 359 records, slow enough to be killed where a test chooses, and a folder for the run. */
  async function start(): Promise<{ service: RunningService; out: string }> {
    const service = await startFixtureService({ records: 300, seed: 5, faults: { workers: 2, pageLatencyMs: 30 } });
    services.push(service);
    const out = await tempDir();
    dirs.push(out);
    return { service, out };
  }

  describe('a run killed after its second read of the collections list, resumed after the service changed', () => {
    // A record deleted after the pass is left out, as its collection's own list no longer serves it, and the count
    // asked once more no longer names it: complete, as in a run not interrupted (count-after-gone.ts).
    it.each([
      ['edit', 0],
      ['delete', 0],
      ['insert', 0],
    ] as const)(
      'a record changed meanwhile (%s): the resumed snapshot is the service at its end',
      async (kind, code) => {
        const { service, out } = await start();
        await killWhen(args(service, out), out, (e) => e.some((x) => x.type === 'collections-end' && x.round === 2));
        const changed = service.change({ kind, collections: 1, seed: 7 });
        expect(changed.records).toHaveLength(1);
        const resumed = await runCliHere(args(service, out));
        expect(resumed.code, resumed.stderr).toBe(code);
        expect(resumed.stderr).not.toMatch(/discarded/); // it did resume: the sample checked does not show one record
        expect(await readManifest(out)).toMatchObject({ complete: code === 0, missing: code === 0 ? 0 : 1 });
        const rows = await readParquetRows(out);
        const ids = rows.map((r) => Number(r['id']));
        // Before: the edited record in its old copy, the deleted one kept, the inserted one missing, and complete.
        expect(ids.slice().sort((a, b) => a - b)).toEqual(service.servedIds().sort((a, b) => a - b));
        expectRowsMatch(rows, expectedRowsOf(service, ids));
      },
    );
  });

  describe('staging dated after the time now (the clock moved back since it was written)', () => {
    it('is discarded with a notice and the run starts afresh: its age is unknown', async () => {
      const { service, out } = await start();
      await killWhen(args(service, out), out, (e) => e.filter((x) => x.type === 'page').length >= 6);
      const runJson = join(out, '.img-etl-staging', 'run.json');
      const identity = JSON.parse(await readFile(runJson, 'utf8')) as { started_at: string };
      await writeFile(runJson, JSON.stringify({ ...identity, started_at: '2099-01-01T00:00:00.000Z' }) + '\n');
      service.resetStats();
      const rerun = await runCliHere(args(service, out));
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stderr).toContain('holds a run started 2099-01-01T00:00:00.000Z, after the time now (');
      expect(rerun.stderr).toMatch(/its age is unknown; discarded it and started afresh/);
      // Before: resumed, its staged pages taken as they were.
      expect(service.stats.listRequests).toBe(Math.ceil(service.dataset.size / 20));
      expect(service.stats.detailRequests).toBe(0);
    });
  });
});
