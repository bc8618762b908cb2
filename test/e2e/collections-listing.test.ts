/**
 * A full run whose read of the collections list after the pass over the images is disturbed: a collection deleted
 * between two of its pages and another created at the same moment leave the list's `count` as it was, so the read is
 * not begun again, and the deleted one's going shifts the next behind the read: the read names the deleted collection
 * and not the live one. The collections table, and the images, must still be what the service holds at the run's end.
 * Real CLI, the bundled service over loopback HTTP.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { expectExact, FORMATS, incrementalFixture, manifestOf } from '../helpers/incremental-snapshots.js';
import { openDuckDB, query, sqlString } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

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
    s.setFaults({
      plan: ({ url }) => {
        if (isCollectionsList(url) && ++listRequests === firstRead + 2) {
          s.dataset.deleteCollection(gone);
          s.change({ kind: 'new-collection', collections: 1, seed: 5 });
        }
        return undefined;
      },
    });
    const base = await newDir();
    const args = ['--base-url', s.url, '--out', base, '--snapshot', ...FORMATS, '--page-size', '5'];
    // --max-missing: `latest` points at the snapshot though the count at the pass's end cannot be met (see below).
    const run = await runCliHere([...args, '--concurrency', '1', '--max-missing', '10']);
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
    // Not published complete on a guess: the image list's count at the end of the pass still names the records of the
    // collection deleted after it (left out now), so the run says what it cannot account for.
    expect([run.code, manifest.complete, manifest.missing]).toEqual([0, false, 7]);
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
