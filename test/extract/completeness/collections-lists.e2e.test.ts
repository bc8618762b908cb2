/**
 * How a run reads the collections lists. A collection deleted and another created between two pages of the
 * collections list leave its `count` as it was, so the read is not begun again, while the deleted one's going shifts
 * the next behind the read: the collections table and the images must still be what the service holds at the run's
 * end. Only DRF's own JSON answer (`{"detail": …}`) says a collection's list is private (403) or gone (404); a
 * proxy's HTML page with that status is a failure to read the list: retried, then exit 1 with the staging kept. The
 * real CLI over loopback HTTP: the bundled service, or a scripted one with the collection endpoints.
 */
import { tableFromIPC } from 'apache-arrow';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/run/publish/manifest.js';
import type { FaultKind, RunningService } from '../../../src/service/index.js';
import { recordsIn, startCollectionsServer } from '../../helpers/collections-server.js';
import { BAD_IDS, expectExact, FORMATS, incrementalFixture, manifestOf } from '../../helpers/incremental-snapshots.js';
import { killWhen, type JournalEntry } from '../../helpers/kill-when.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { readParquetRows } from '../../helpers/read-snapshot.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { runCliHere, type CliRun } from '../../helpers/run-cli.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';

const { serve, newDir } = incrementalFixture();

/** The ids of every public collection the service lists now, ascending. */
async function listedCollections(s: RunningService): Promise<number[]> {
  const list = (await (await fetch(`${s.url}/api/collections/?limit=1000`)).json()) as { results: { id: number }[] };
  return list.results.map((c) => c.id).sort((a, b) => a - b);
}

/** The ids of the latest snapshot's collections table in each format, ascending. */
async function tableIds(base: string): Promise<Record<string, number[]>> {
  const dir = join(base, 'latest');
  const db = await openDuckDB();
  const ids = async (from: string) =>
    (await query(db, `SELECT id FROM ${from} ORDER BY id`)).map((r) => Number(r['id']));
  const arrow = tableFromIPC(await readFile(join(dir, 'collections.arrow')));
  return {
    parquet: await ids(`read_parquet(${sqlString(join(dir, 'collections.parquet'))})`),
    csv: await ids(`read_csv(${sqlString(join(dir, 'collections.csv'))})`),
    arrow: [...arrow.getChild('id')!].map(Number).sort((a, b) => a - b),
  };
}

/** Whether a request is one of the collections list's (not one collection's own list). */
const isCollectionsList = (url: string) => /^\/api\/collections\/(\?|$)/.test(url);

describe('a collection deleted and another created while a full run reads the collections list after the pass', () => {
  it('the collections table holds the live collection shifted behind the read, not the deleted one', async () => {
    // Seed 74: collection 3 is on the list's first page of five, 7 the first of its second (incremental-listing.test).
    const s = await serve(400, 74);
    const initial = await listedCollections(s);
    const firstRead = Math.ceil(initial.length / 5);
    const gone = 3;
    const shifted = 7;
    // Deleted as the second read asks for its second page, a collection created at the same moment: 3's going shifts 7
    // back onto the first page, which the read has passed, and the list's count stays.
    let listRequests = 0;
    let made = 0;
    s.setFaults({
      plan: ({ url }) => {
        if (isCollectionsList(url) && ++listRequests === firstRead + 2) {
          s.dataset.deleteCollection(gone);
          made = s.change({ kind: 'new-collection', collections: 1, seed: 5 }).records.length;
        }
        return undefined;
      },
    });
    const base = await newDir();
    const args = ['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '5'];
    const run = await runCliHere([...args, '--concurrency', '1']);
    expect(listRequests).toBeGreaterThan(firstRead + 2); // the change was made while the second read paged
    const atEnd = await listedCollections(s);
    expect(atEnd).toContain(shifted);
    expect(atEnd).not.toContain(gone);
    // The reads after the pass disagreed (7 left out, then 3): read again until two agreed, and the run goes by those.
    expect(run.stderr).toContain('19 of 19 collections listed');
    const manifest = await manifestOf(base);
    expect(manifest.completeness.collections).toMatchObject({ rounds: 4, complete: true });
    expect(manifest.completeness.unreadable.map((u) => [u.id, u.status])).toEqual([[gone, 404]]);
    expect(await tableIds(base)).toEqual({ parquet: atEnd, csv: atEnd, arrow: atEnd });
    await expectExact(s, base);
    // Complete: the image list's count at the end of the pass still named the records of the collection deleted after
    // it (left out now), so the run asked for the count once more and holds exactly that many.
    expect([run.code, manifest.complete, manifest.missing]).toEqual([0, true, 0]);
    const { images, unreadable } = manifest.completeness;
    expect(manifest.expected).toBe(images.expected - unreadable[0]!.dropped + made);
  });
});

/** What changedAsTheListIsReadAgain gives: the run, its folder and manifest, and the service's collections after it. */
interface ChangedRun {
  run: CliRun;
  base: string;
  manifest: Manifest;
  atEnd: number[];
  /** The records collection 3 held in the image list before it was deleted. */
  gone: number;
}

/**
 * A run (pages of five, one at a time) during which `change(3)` is made as the collections list's read after the pass
 * asks for its first page, before that page is built: that read lists what the service holds after the change. From
 * then on, `fault` may answer a request of the image list's. The manifest is the snapshot's, published or not.
 */
async function changedAsTheListIsReadAgain(
  s: RunningService,
  change: (gone: number) => void,
  fault: (url: string) => FaultKind | undefined = () => undefined,
): Promise<ChangedRun> {
  const firstRead = Math.ceil((await listedCollections(s)).length / 5);
  const gone = s.servedIds().filter((id) => s.dataset.collectionIdOf(id) === 3).length;
  let listRequests = 0;
  s.setFaults({
    plan: ({ url }) => {
      if (isCollectionsList(url) && ++listRequests === firstRead + 1) change(3);
      return listRequests > firstRead ? fault(url) : undefined;
    },
  });
  const base = await newDir();
  const args = ['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '5'];
  const run = await runCliHere([...args, '--concurrency', '1', '--retry-delay', '0.01', '--max-attempts', '2']);
  expect(listRequests).toBeGreaterThan(firstRead + 1); // the change was made while the list was read again
  const folder = (await readdir(base)).find((name) => /^\d{8}T/.test(name))!;
  const manifest = JSON.parse(await readFile(join(base, folder, 'manifest.json'), 'utf8')) as Manifest;
  return { run, base, manifest, atEnd: await listedCollections(s), gone };
}

/** The image list's `count` now. */
const countNow = async (s: RunningService) =>
  ((await (await fetch(`${s.url}/api/images/?limit=1`)).json()) as { count: number }).count;

describe('a collection deleted after the pass over the images, while the collections list is read again', () => {
  it('complete: no table holds it or its records, and the count the run is held to does not name them', async () => {
    const s = await serve(400, 74);
    const { run, base, manifest, atEnd, gone } = await changedAsTheListIsReadAgain(s, (cid) =>
      s.dataset.deleteCollection(cid),
    );
    expect(gone).toBeGreaterThan(0);
    expect(run.code, run.stderr).toBe(0);
    expect(manifest).toMatchObject({ complete: true, missing: 0 });
    expect(manifest.completeness.unreadable).toEqual([{ id: 3, status: 404, dropped: gone }]);
    // The pass's count named 3's records; the count asked once more after 3 was found gone is the one the run meets.
    const count = await countNow(s);
    expect(manifest.completeness.images.expected).toBe(count + gone);
    const { expected, count_at_end, received, completeness } = manifest;
    expect([expected, count_at_end, received, completeness.reconciliation.missing]).toEqual([count, count, count, 0]);
    expect(await tableIds(base)).toEqual({ parquet: atEnd, csv: atEnd, arrow: atEnd });
    await expectExact(s, base);
    // The manifest's counts agree with one another and with its files: diff reads the snapshot without refusing it.
    const diff = await runCliHere(['diff', join(base, 'latest'), join(base, 'latest'), '--out', await newDir()]);
    expect(diff.code, diff.stderr).toBe(0);
  });

  it('with records deleted from a collection still listed, which its own list no longer serves: complete', async () => {
    // The count asked again fell by 3's records and two more: the run vouches for both, the two others' going shown by
    // their collection's own list, which it reads as the collection changed.
    const s = await serve(400, 74);
    const kept = (await listedCollections(s)).filter((cid) => cid !== 3 && cid !== 7).at(-1)!;
    const victims = s
      .servedIds()
      .filter((id) => s.dataset.collectionIdOf(id) === kept)
      .slice(0, 2);
    expect(victims).toHaveLength(2);
    const { run, base, manifest, atEnd } = await changedAsTheListIsReadAgain(s, (cid) => {
      s.dataset.deleteCollection(cid);
      for (const id of victims) s.dataset.deleteId(id);
    });
    expect(run.code, run.stderr).toBe(0);
    expect(manifest).toMatchObject({ complete: true, missing: 0, count_at_end: await countNow(s) });
    expect(manifest.completeness.reconciliation.removed).toBe(2);
    expect(await tableIds(base)).toEqual({ parquet: atEnd, csv: atEnd, arrow: atEnd });
    await expectExact(s, base);
  });

  it('with as many records made in new collections and records counted but never served: incomplete', async () => {
    // 3's records gone and as many made at that moment: the count asked again is the count at the end of the pass.
    // The orphan rows (counted, never served) are still what the run lacks.
    const s = await serve(400, 74);
    s.setFaults({ orphanRate: 0.01 });
    const orphans = () => s.dataset.ids().length - s.servedIds().length;
    expect(orphans()).toBeGreaterThan(0);
    const { run, manifest } = await changedAsTheListIsReadAgain(s, (cid) => {
      const held = s.dataset.ids().length;
      s.dataset.deleteCollection(cid);
      const gone = held - s.dataset.ids().length;
      for (let seed = 1, made = 0; made < gone; seed++)
        made += s.change({ kind: 'new-collection', collections: 1, seed }).records.length;
    });
    expect(await countNow(s)).toBe(manifest.completeness.images.expected);
    expect(run.code, run.stderr).toBe(3);
    expect(manifest).toMatchObject({ complete: false, missing: orphans() });
  });

  it('the count cannot be read again: incomplete, the records of the collection gone counted missing', async () => {
    const s = await serve(400, 74);
    const failed = (url: string) => (url.startsWith('/api/images/?limit=1&') ? '502' : undefined);
    const { run, manifest, gone } = await changedAsTheListIsReadAgain(
      s,
      (cid) => s.dataset.deleteCollection(cid),
      failed,
    );
    expect(run.code, run.stderr).toBe(3);
    expect(manifest).toMatchObject({ complete: false, missing: gone });
  });
});

describe('a run killed once it found a collection gone after the pass', () => {
  it('resumes and asks the image list for its count again: complete, the gone records left out', async () => {
    const s = await serve(400, 74);
    const firstRead = Math.ceil((await listedCollections(s)).length / 5);
    let listRequests = 0;
    const recounts: string[] = [];
    s.setFaults({
      plan: ({ url }) => {
        if (isCollectionsList(url) && ++listRequests === firstRead + 1) s.dataset.deleteCollection(3);
        if (url.startsWith('/api/images/?limit=1&')) recounts.push(url);
        return undefined;
      },
    });
    const out = await newDir();
    const args = ['--base-url', s.url, '--out', out, '--to', 'parquet', '--page-size', '5', '--concurrency', '1'];
    // Killed once the journal holds the end of 3's reading (404): a resumed run reads it no more.
    const gone = (e: JournalEntry) => e.type === 'collection-end' && (e as { status?: number }).status === 404;
    const left = await killWhen(args, out, (entries) => entries.some(gone));
    expect(left.filter(gone)).toHaveLength(1);
    const asked = recounts.length;
    const resumed = await runCliHere(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(recounts.length).toBe(asked + 1); // the resumed process asked for the count itself
    const manifest = await readManifest(out);
    expect(manifest).toMatchObject({ complete: true, missing: 0, expected: await countNow(s) });
    expect(manifest.completeness.unreadable).toMatchObject([{ id: 3, status: 404 }]);
    const ids = (await readParquetRows(out)).map((r) => Number(r['id']));
    expect(new Set(ids)).toEqual(new Set(s.servedIds().filter((id) => !BAD_IDS.includes(id))));
  });
});

describe('a collections list whose count moves on every page, pass after pass', () => {
  it('a run whose reads of the list never came out whole says it is incomplete', async () => {
    // A collection created as one page of the list is asked for and deleted as the next is: every page's count differs
    // from the one before, so each pass over the list forgets what it read, and the passes run out with its id set
    // incomplete, in every read of it.
    const s = await serve(100, 74);
    let made: number | undefined;
    let pages = 0;
    s.setFaults({
      plan: ({ url }) => {
        if (!isCollectionsList(url)) return undefined;
        pages++;
        if (made === undefined) made = s.change({ kind: 'new-collection', collections: 1, seed: pages }).collections[0];
        else {
          s.dataset.deleteCollection(made);
          made = undefined;
        }
        return undefined;
      },
    });
    const base = await newDir();
    const args = ['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '5'];
    const run = await runCliHere([...args, '--concurrency', '1']);
    expect(pages).toBeGreaterThan(20); // passes over the list, every page of them changed
    expect(run.code, run.stderr).toBe(3);
    const manifest = await manifestOf(base).catch(() => undefined);
    expect(manifest?.complete ?? false).toBe(false);
  });
});

describe("a collection's own list answered 403 or 404", () => {
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

  /** A proxy's own page for a status, as nginx writes it. */
  const proxyPage = (status: number) =>
    `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n` +
    '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
  const DRF_DETAIL: Record<number, string> = {
    403: 'You do not have permission to perform this action.',
    404: 'Not found.',
  };

  /**
   * Collections 1, 2 and 3 of ten records each; the image list skips record 205, so collection 2 comes up short and is
   * read through its own list, which answers `status` in `body`. Collection 2 turned private (or was deleted) after the
   * list's first page: its later pages no longer count its records.
   */
  async function readShortCollection(status: number, body: { type: string; body: string }): Promise<CliRun> {
    const [a, b, c] = [recordsIn(1, 10, 100), recordsIn(2, 10, 200), recordsIn(3, 10, 300)];
    const records = a.flatMap((r, i) => [r, b[i]!, c[i]!]);
    server = await startCollectionsServer({
      records,
      unserved: [205],
      count: (offset) => (offset === 0 ? 30 : 20),
      answer: (collection) => (collection === 2 ? { status, ...body } : undefined),
    });
    return runCliHere([
      ...['--base-url', server.origin, '--out', out, '--page-size', '10'],
      ...['--retry-delay', '0.01', '--max-attempts', '3', '--quiet'],
    ]);
  }

  /** Requests for collection 2's own list. */
  const collectionRequests = () => server!.requests.filter((u) => u.startsWith('/api/collections/2/images/')).length;

  describe("a collection's own list answering 403 or 404", () => {
    it.each([403, 404])(
      "in a proxy's HTML page (%i): retried, then exit 1 with one line naming the URL, the staging kept",
      async (status) => {
        const run = await readShortCollection(status, { type: 'text/html', body: proxyPage(status) });
        expect(run.code).toBe(1);
        const staging = join(out, '.img-etl-staging');
        const url = `${server!.origin}/api/collections/2/images/?limit=10&offset=0`;
        expect(run.stderr).toMatch(
          new RegExp(
            `^img-etl: extract: GET ${url.replace(/[?.]/g, '\\$&')} returned ${status} after 3 attempts; ` +
              `\\d+ pages are kept in ${staging.replace(/[.]/g, '\\.')}: run the same command again to resume\\n$`,
          ),
        );
        expect(collectionRequests()).toBe(3);
        expect(existsSync(join(staging, 'journal.ndjson'))).toBe(true);
        expect(existsSync(join(out, 'manifest.json'))).toBe(false);
      },
    );

    it.each([403, 404])("in DRF's JSON (%i): private or deleted, its records left out, not retried", async (status) => {
      const detail = JSON.stringify({ detail: DRF_DETAIL[status] });
      const run = await readShortCollection(status, { type: 'application/json', body: detail });
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(collectionRequests()).toBe(1);
      const manifest = await readManifest(out);
      expect(manifest.completeness.unreadable).toEqual([{ id: 2, status, dropped: 9 }]);
      expect(manifest).toMatchObject({ complete: true, missing: 0, records_written: 20 });
      const why = status === 403 ? 'private now' : 'deleted';
      expect(run.stdout).toContain(`  left out  collection 2 answered ${status} (${why}): 9 records of it left out`);
    });
  });
});
