/**
 * Issue 14, item 2: a run killed with SIGKILL inside the collections phase or inside the reading of the collections
 * that came up short resumes inside that phase: no staged page of the image list or of the collections list's read
 * before the pass is fetched again, and the snapshot is complete and exact. What was read after the pass (the
 * collections list again, the collections' own lists) is read again by the resumed run (sixteenth session).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { expectRowsMatch } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { killWhen } from '../../helpers/kill-when.js';
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
