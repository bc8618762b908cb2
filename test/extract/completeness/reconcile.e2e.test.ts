/**
 * Completeness by reconciliation: one pass over /api/images/, the collections list, and the own list of each
 * collection that came up short; requests counted per endpoint; a service without the collection endpoints falls back
 * to passes over the image list. Reconciliation never proves more than the image list counts: a run that holds fewer
 * distinct records than the service counts is incomplete (exit 3), whatever the collections say. The real CLI against
 * the bundled service (or a scripted one with the collection endpoints) over loopback HTTP, outputs read back by DuckDB
 * and apache-arrow and compared value by value with what was served.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type FaultOptions, type RunningService } from '../../../src/service/index.js';
import { recordsIn, startCollectionsServer, type CollectionsScript } from '../../helpers/collections-server.js';
import { expectRowsMatch } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readArrowRows, readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere, type CliRun } from '../../helpers/run-cli.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';

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

const FAST_RETRIES = [
  ['--retry-delay', '0.02'],
  ['--max-attempts', '10'],
];
const PAGE = 100;
/** Runs the CLI into `out`, Parquet and Arrow, PAGE records a page unless `args` say otherwise. */
const snapshot = (target: RunningService, ...args: string[]) => {
  const defaults = [['--page-size', String(PAGE)], ...FAST_RETRIES].filter(([name]) => !args.includes(name!)).flat();
  return runCliHere(['--base-url', target.url, '--out', out, '--to', 'parquet,arrow', ...defaults, ...args]);
};
const manifestOf = () => readManifest(out);

/**
 * The ids written, after checking that Parquet (DuckDB) and Arrow (apache-arrow) hold the same rows, each exactly as
 * served.
 */
async function writtenIds(target: RunningService): Promise<number[]> {
  const parquet = await readParquetRows(out);
  const ids = parquet.map((r) => Number(r['id']));
  expect(new Set(ids).size).toBe(ids.length);
  const expected = expectedRowsOf(target, ids);
  expectRowsMatch(parquet, expected);
  expectRowsMatch(await readArrowRows(out), expected);
  return ids;
}

/** Pages of one pass over the image list and of the collections list, at PAGE records a page. */
function onePass(target: RunningService): { images: number; collections: number } {
  return {
    images: Math.ceil(target.dataset.size / PAGE),
    collections: Math.ceil(target.dataset.collections.publicCount / PAGE),
  };
}

describe('completeness by reconciliation', () => {
  it(
    'a clean run costs one pass over the images plus the collections list before and after it, ' +
      'and counts its requests per endpoint',
    async () => {
      service = await startFixtureService({ records: 1500, seed: 31 });
      const pages = onePass(service);
      const run = await snapshot(service, '--concurrency', '3');
      expect(run.code).toBe(0);
      expect(service.stats.listRequests).toBe(pages.images);
      // The collections list before the pass and after it (what changed while it ran is read again).
      expect(service.stats.collectionRequests).toBe(2 * pages.collections);
      expect(service.stats.detailRequests).toBe(0);
      const manifest = await manifestOf();
      expect(manifest.requests).toEqual({
        images: pages.images,
        collections: 2 * pages.collections,
        collection_images: 0,
        image: 0,
      });
      expect(manifest.completeness).toMatchObject({
        method: 'reconciliation',
        images: { expected: 1559, received: 1559, proven: true },
        collections: {
          ...{ status: 200, expected: service.dataset.collections.publicCount, passes: 1, complete: true, rounds: 2 },
        },
        reconciled: [],
        unreadable: [],
      });
      expect(manifest).toMatchObject({ complete: true, missing: 0 });
      const [total, listed] = [pages.images + 2 * pages.collections, service.dataset.collections.publicCount];
      expect(run.stdout).toContain(
        `  requests  ${total}: ${pages.images} images, ${2 * pages.collections} collections, ` +
          '0 collection_images, 0 image',
      );
      expect(run.stdout).toContain(
        '  proof     one pass over the images, complete by count (nothing repeated, count unchanged); ' +
          `collections list ${listed} of ${listed}, read before and after, unchanged`,
      );
      expect(new Set(await writtenIds(service))).toEqual(new Set(service.servedIds()));
    },
  );

  it(
    'a scan that starts at a random row on every request: ' +
      'complete with exit 0, the short collections read in id order',
    async () => {
      service = await startFixtureService({
        records: 2000,
        seed: 32,
        faults: { unstableOrderRate: 1, unstableOrderMode: 'rotate', faultSeed: 4 },
      });
      const pages = onePass(service);
      const run = await snapshot(service, '--concurrency', '3');
      expect(service.stats.rotatedScans).toBeGreaterThanOrEqual(pages.images);
      expect(run.code).toBe(0);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({ complete: true, missing: 0, passes: [{ pass: 1, clean: false }] });
      const { completeness, requests } = manifest;
      expect(completeness.images.proven).toBe(false);
      expect(completeness.images.received).toBeLessThan(completeness.images.expected); // the pass alone was incomplete
      expect(completeness.reconciliation.added).toBe(completeness.images.expected - completeness.images.received);
      for (const c of completeness.reconciled) expect(c.received).toBe(c.count);
      // The image list is read once; the collections endpoints get their list plus the short collections' pages.
      expect(requests.images).toBe(service.stats.listRequests);
      expect(requests.images).toBe(pages.images);
      expect(requests.collections + requests.collection_images).toBe(service.stats.collectionRequests);
      expect(requests.images + requests.collections).toBeLessThanOrEqual(1.5 * (pages.images + pages.collections));
      expect(new Set(await writtenIds(service))).toEqual(new Set(service.servedIds()));
    },
  );

  it(
    'rotating scans, inserts and deletes while paging, and the fault mix: ' +
      'every record that existed for the whole run, once, exact',
    async () => {
      const faults: FaultOptions = {
        ...{
          unstableOrderRate: 1,
          unstableOrderMode: 'rotate',
          insertRate: 0.2,
          insertCount: 2,
          deleteRate: 0.2,
          deleteCount: 2,
        },
        ...{ rate500: 0.1, rate502: 0.05, rate429: 0.05, rateTruncate: 0.03, retryAfterSeconds: 1, faultSeed: 6 },
      };
      service = await startFixtureService({ records: 2000, seed: 33, faults });
      const pages = onePass(service);
      const run = await snapshot(service, '--concurrency', '3');
      expect(run.code).toBe(0);
      const { stats, dataset } = service;
      // The faults and the changes really happened (guards against a test that passes because nothing went wrong).
      expect(stats.faults['500']).toBeGreaterThan(0);
      expect(stats.faults['429'] + stats.faults['502'] + stats.faults.truncate).toBeGreaterThan(0);
      expect(dataset.insertedIds().length).toBeGreaterThan(0);
      expect(dataset.deletedIds().length).toBeGreaterThan(0);
      const ids = await writtenIds(service);
      const have = new Set(ids);
      expect(dataset.stableIds().filter((id) => !have.has(id))).toEqual([]);
      const everServed = new Set([...dataset.initialIds(), ...dataset.insertedIds()]);
      expect(ids.filter((id) => !everServed.has(id))).toEqual([]);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({ complete: true, missing: 0 });
      expect(manifest.passes).toHaveLength(1);
      expect(manifest.pages_fetched).toBeLessThanOrEqual(1.5 * pages.images);
      expect(manifest.completeness.reconciled.length).toBeGreaterThan(0);
    },
  );

  it(
    'a collection made private and one deleted mid-run: ' + 'reported with their status, their records left out',
    async () => {
      let listRequests = 0;
      let changed: { hidden: number; deleted: number } | undefined;
      const plan: FaultOptions['plan'] = ({ url }) => {
        if (url.startsWith('/api/images/?') && ++listRequests === 4) {
          const { dataset } = service!;
          const [hidden, deleted] = [
            dataset.collectionIdOf(dataset.idAt(10))!,
            dataset.collectionIdOf(dataset.idAt(120))!,
          ];
          changed = { hidden, deleted };
          dataset.hideCollection(hidden);
          dataset.deleteCollection(deleted);
        }
        return undefined;
      };
      service = await startService({ records: 1500, seed: 34, faults: { plan } });
      const collectionOf = new Map(service.dataset.ids().map((id) => [id, service!.dataset.collectionIdOf(id)]));
      const run = await snapshot(service, '--concurrency', '1', '--page-size', '50');
      expect(run.code).toBe(0);
      const { hidden, deleted } = changed!;
      expect(hidden).not.toBe(deleted);
      const ids = await writtenIds(service);
      expect(ids.filter((id) => collectionOf.get(id) === hidden || collectionOf.get(id) === deleted)).toEqual([]);
      const have = new Set(ids);
      expect(service.dataset.stableIds().filter((id) => !have.has(id))).toEqual([]);
      const { completeness } = await manifestOf();
      const unreadable = [...completeness.unreadable].sort((a, b) => a.status - b.status);
      const aNumber = expect.any(Number) as number; // vitest types an asymmetric matcher as any
      expect(unreadable).toEqual([
        { id: hidden, status: 403, dropped: aNumber },
        { id: deleted, status: 404, dropped: aNumber },
      ]);
      for (const u of unreadable) expect(u.dropped).toBeGreaterThan(0); // the pass had received some of their records
      expect(run.stdout).toContain(`  left out  collection ${hidden} answered 403 (private now): `);
      expect(run.stdout).toContain(`  left out  collection ${deleted} answered 404 (deleted): `);
    },
  );

  it(
    'a record the image list cannot serve is found through its collection, ' + 'and its offset still reported',
    async () => {
      const poisoned = 137;
      service = await startFixtureService({
        records: 240,
        seed: 15,
        faults: {
          plan: ({ url }) => {
            if (!url.startsWith('/api/images/?')) return undefined;
            const u = new URL(url, 'http://x');
            const offset = Number(u.searchParams.get('offset') ?? 0);
            return offset <= poisoned && poisoned < offset + Number(u.searchParams.get('limit')) ? '500' : undefined;
          },
        },
      });
      const badId = service.dataset.idAt(poisoned);
      const run = await snapshot(service, '--page-size', '50', '--max-attempts', '2');
      expect(run.code).toBe(0);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({ complete: true, missing: 0, skipped_offsets: [poisoned] });
      expect(manifest.completeness.reconciled.map((c) => c.id)).toContain(service.dataset.collectionIdOf(badId));
      expect(await writtenIds(service)).toContain(badId);
    },
  );

  it(
    'orphans (counted, never served) are missing in their collection too: ' + 'exit 3, and --max-missing lets it pass',
    async () => {
      service = await startFixtureService({ records: 300, seed: 14, faults: { orphanRate: 0.02, faultSeed: 2 } });
      const orphans = service.dataset.ids().filter((id) => service!.isOrphan(id)).length;
      expect(orphans).toBeGreaterThan(0);
      const strict = await snapshot(service);
      expect(strict.code).toBe(3);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({ complete: false, missing: orphans });
      expect(manifest.completeness.reconciliation.missing).toBe(orphans);
      const lenient = await snapshot(service, '--max-missing', String(orphans));
      expect(lenient.code).toBe(0);
    },
  );
});

describe('a service without the collection endpoints', () => {
  it(
    'gets its images snapshot from passes over the image list; ' + 'the manifest and summary say why, in one line',
    async () => {
      const faults: FaultOptions = { insertRate: 0.3, insertCount: 3, deleteRate: 0.3, deleteCount: 3, faultSeed: 9 };
      service = await startFixtureService({ records: 1200, seed: 35, collectionEndpoints: false, faults });
      const run = await snapshot(service, '--page-size', '50', '--concurrency', '2');
      const manifest = await manifestOf();
      const note =
        `GET ${service.url}/api/collections/ returned 404: the service has no collection endpoints, ` +
        'so there is no collections table';
      expect(manifest.completeness.method).toBe('passes');
      expect(manifest.completeness.note).toContain(note);
      expect(manifest.completeness.collections).toMatchObject({ status: 404, complete: false });
      expect(run.stdout).toContain(`  proof     ${note}`);
      expect(run.stdout.split('\n').filter((line) => line.includes('no collection endpoints'))).toHaveLength(1);
      expect(manifest.requests.collections).toBe(1);
      expect(service.stats.byStatus[404]).toBe(1);
      expect(manifest.passes.length).toBeGreaterThan(1);
      const ids = await writtenIds(service);
      const have = new Set(ids);
      expect(service.dataset.stableIds().filter((id) => !have.has(id))).toEqual([]);
      expect(run.code).toBe(manifest.missing === 0 ? 0 : 3);
    },
  );

  it('a clean run is complete by count: exit 0, every record exact', async () => {
    service = await startFixtureService({ records: 600, seed: 36, collectionEndpoints: false });
    const run = await snapshot(service);
    expect(run.code).toBe(0);
    const manifest = await manifestOf();
    expect(manifest).toMatchObject({
      complete: true,
      missing: 0,
      requests: { images: Math.ceil(659 / PAGE), collections: 1, collection_images: 0 },
    });
    expect(new Set(await writtenIds(service))).toEqual(new Set(service.servedIds()));
  });
});

describe('reconciliation never proves more than the image list counts', () => {
  let out: string;
  let server: ScriptedServer | undefined;
  beforeEach(async () => {
    out = await tempDir();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await removeDir(out);
  });

  /** Collections 1, 2 and 3 of ten records each, their records interleaved in the image list as NeuroVault's are. */
  const tenEach = (): Record<string, unknown>[] => {
    const [a, b, c] = [recordsIn(1, 10, 100), recordsIn(2, 10, 200), recordsIn(3, 10, 300)];
    return a.flatMap((r, i) => [r, b[i]!, c[i]!]);
  };

  /** Runs the CLI against the script, ten records a page, into `out`. */
  async function snapshot(script: CollectionsScript): Promise<CliRun> {
    server = await startCollectionsServer(script);
    return runCliHere([
      '--base-url',
      server.origin,
      '--out',
      out,
      '--page-size',
      '10',
      '--retry-delay',
      '0.01',
      '--quiet',
    ]);
  }

  /** The ids written, ascending. */
  async function writtenIds(): Promise<number[]> {
    return (await readParquetRows(out)).map((r) => Number(r['id'])).sort((a, b) => a - b);
  }

  describe('fewer distinct records than the service counts is incomplete, whatever the collections say', () => {
    it('two records counted in a collection the collections list does not show: exit 3, 2 missing', async () => {
      const hidden = recordsIn(9, 2, 900);
      const records = [...tenEach().slice(0, 28), ...hidden];
      const run = await snapshot({ records, listed: [1, 2, 3], unserved: [900, 901] });
      expect([run.code, run.stderr]).toEqual([3, '']);
      const manifest = await readManifest(out);
      expect(manifest).toMatchObject({ complete: false, expected: 30, received: 28, missing: 2, records_written: 28 });
      expect(run.stdout).toContain('28 written, 0 rejected; the service counts 30: 2 missing');
      expect(await writtenIds()).toEqual(
        records
          .slice(0, 28)
          .map((r) => r['id'] as number)
          .sort((a, b) => a - b),
      );
    });

    it('a count that grows from 30 to 34 during the pass while 30 records are served: exit 3, 4 missing', async () => {
      const records = tenEach();
      const run = await snapshot({ records, count: (offset) => (offset === 0 ? 30 : 34) });
      expect([run.code, run.stderr]).toEqual([3, '']);
      const manifest = await readManifest(out);
      expect(manifest).toMatchObject({ complete: false, expected: 34, received: 30, missing: 4, records_written: 30 });
      expect(run.stdout).toContain('the service counted 30 at the start and 34 at the end: 4 missing');
    });

    it("a record the image list counts but skips, which its collection's own list leaves out: exit 3", async () => {
      const records = tenEach();
      const run = await snapshot({ records, unserved: [205], omitted: [205] });
      expect([run.code, run.stderr]).toEqual([3, '']);
      const manifest = await readManifest(out);
      // Collection 2 came up short and was read through its own list, which served all its count named.
      expect(manifest.completeness.reconciled).toMatchObject([{ id: 2, reason: 'short', count: 9, received: 9 }]);
      expect(manifest).toMatchObject({ complete: false, expected: 30, received: 29, missing: 1, records_written: 29 });
      expect(await writtenIds()).not.toContain(205);
    });
  });

  /** The three scripts above, with the image list's `count` at the end of the pass and the distinct records held. */
  const SHORT_RUNS: { name: string; script: () => CollectionsScript; count: number; held: number }[] = [
    {
      name: 'a collection the collections list does not show',
      script: () => ({
        records: [...tenEach().slice(0, 28), ...recordsIn(9, 2, 900)],
        listed: [1, 2, 3],
        unserved: [900, 901],
      }),
      count: 30,
      held: 28,
    },
    {
      name: 'a count that grows from 30 to 34',
      script: () => ({ records: tenEach(), count: (offset) => (offset === 0 ? 30 : 34) }),
      count: 34,
      held: 30,
    },
    {
      name: "a record a collection's own list leaves out",
      script: () => ({ records: tenEach(), unserved: [205], omitted: [205] }),
      count: 30,
      held: 29,
    },
  ];

  /** "0 missing" as a number of its own (not the end of "20 missing"). */
  const NONE_MISSING = /(?<!\d)0 missing/;

  describe('every line that states the proof gives the missing records the records line gives', () => {
    it.each(SHORT_RUNS)('$name: progress, summary and manifest say which count was short', async (c) => {
      const missing = c.count - c.held;
      server = await startCollectionsServer(c.script());
      const run = await runCliHere([
        '--base-url',
        server.origin,
        '--out',
        out,
        '--page-size',
        '10',
        '--retry-delay',
        '0.01',
      ]);
      expect(run.code).toBe(3);
      const why =
        `${missing} missing (the image list counts ${c.count} at the end, ` +
        `but the pass and the collections read account for ${c.held})`;
      const reconciled = run.stderr.split('\n').filter((line) => line.startsWith('img-etl: reconciled '));
      expect(reconciled).toHaveLength(1);
      expect(reconciled[0]).toMatch(/^img-etl: reconciled \d+ collections?: 0 records added, /);
      expect(reconciled[0]!.endsWith(`: 0 records added, ${why}`)).toBe(true);
      expect(run.stdout).toContain(`  proof     one pass over the images, then `);
      expect(run.stdout).toContain(`: +0 records, ${why}; collections list 3 of 3, read before and after\n`);
      expect(run.stderr).not.toMatch(NONE_MISSING);
      expect(run.stdout).not.toMatch(NONE_MISSING);
      const manifest = await readManifest(out);
      expect(manifest.missing).toBe(missing);
      expect(manifest.completeness.reconciliation).toMatchObject({ unserved: 0, missing });
      expect(JSON.stringify(manifest.completeness)).not.toMatch(/"missing":0\b/);
      // The report page says the proof's missing records in words (its JSON stays in report.json and the manifest).
      const page = join(out, 'page.html');
      expect((await runCliHere(['report', out, '--out', page])).code).toBe(0);
      const html = await readFile(page, 'utf8');
      const stillMissing = /<th scope="row">still missing<\/th><td>([^<]*)<\/td>/.exec(html)?.[1];
      expect(stillMissing).toBe(`${missing} ${missing === 1 ? 'record' : 'records'} the proof cannot account for`);
      expect(html).not.toContain('&#34;missing&#34;');
    });
  });
});
