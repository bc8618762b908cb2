/**
 * A snapshot equals the service's list as it stands when the run ends. Records deleted while the run
 * pages are not in it, records inserted are, and the collections whose images changed are read through their own
 * id-ordered list, which decides their rows. Real CLI, the bundled service over loopback HTTP, outputs read back by
 * DuckDB and apache-arrow and compared value by value with what the service serves at the end.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type FaultOptions, type RunningService } from '../../../src/service/index.js';
import { Random } from '../../../src/service/basics/random.js';
import { expectRowsMatch } from '../../helpers/expected-row.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readArrowRows, readParquetRows } from '../../helpers/read-snapshot.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

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

/** Runs the CLI into `out`, Parquet and Arrow, 100 records a page. */
const snapshot = (target: RunningService, ...args: string[]) =>
  runCliHere(['--base-url', target.url, '--out', out, '--to', 'parquet,arrow', '--page-size', '100', ...args]);

/** A Random whose every draw of a row is `row`: a change at a chosen place in the list. */
class AtRow extends Random {
  constructor(private readonly row: number) {
    super(1);
  }
  override int(): number {
    return this.row;
  }
}

/** The ids written, after checking that Parquet and Arrow hold the same rows, each as the service serves it now. */
async function writtenIds(target: RunningService): Promise<number[]> {
  const parquet = await readParquetRows(out);
  const ids = parquet.map((r) => Number(r['id']));
  expect(new Set(ids).size).toBe(ids.length);
  const expected = expectedRowsOf(target, ids);
  expectRowsMatch(parquet, expected);
  expectRowsMatch(await readArrowRows(out), expected);
  return ids;
}

/** The collections of the images table that the collections table does not hold. */
async function collectionsNotListed(): Promise<number[]> {
  const db = await openDuckDB();
  const [images, collections] = ['images', 'collections'].map((t) => sqlString(join(out, `${t}.parquet`)));
  const rows = await query(
    db,
    `SELECT DISTINCT collection_id FROM read_parquet(${images}) ` +
      `WHERE collection_id NOT IN (SELECT id FROM read_parquet(${collections})) ORDER BY 1`,
  );
  return rows.map((r) => Number(r['collection_id']));
}

describe('a snapshot exact at the end of its run', () => {
  it(
    'a record deleted and another inserted at a row the pass had read (the count unchanged, nothing repeated): ' +
      'the deleted record is not in the snapshot, the inserted one is',
    async () => {
      let listRequests = 0;
      let changed: { deleted: number[]; inserted: number[] } | undefined;
      const plan: FaultOptions['plan'] = ({ url }) => {
        if (url.startsWith('/api/images/?') && ++listRequests === 6) {
          const { dataset } = service!;
          changed = { deleted: dataset.delete(1, new AtRow(10)), inserted: dataset.insert(1, new AtRow(10)) };
        }
        return undefined;
      };
      service = await startService({ records: 1000, seed: 51, faults: { plan } });
      const run = await snapshot(service, '--concurrency', '1');
      expect(changed).toBeDefined();
      expect(run.code).toBe(0);
      const ids = new Set(await writtenIds(service));
      expect(ids.has(changed!.deleted[0]!)).toBe(false);
      expect(ids.has(changed!.inserted[0]!)).toBe(true);
      expect(ids).toEqual(new Set(service.servedIds()));
      const { completeness } = await readManifest(out);
      expect(completeness.reconciliation.removed).toBe(1);
      const reread = completeness.reconciled.map((c) => c.id);
      expect(reread).toContain(service.dataset.collectionIdOf(changed!.deleted[0]!));
      expect(run.stdout).toContain('1 record deleted while the run paged');
    },
  );

  it(
    'records deleted from a collection while every reading of its own list is paged (its count never holds still): ' +
      'not in the snapshot, which still ends complete',
    async () => {
      const deleted: number[] = [];
      const idsOf = (cid: number) => service!.dataset.ids().filter((id) => service!.dataset.collectionIdOf(id) === cid);
      const plan: FaultOptions['plan'] = ({ url }) => {
        const { dataset } = service!;
        // A record the pass has read is deleted while it goes on: the collection changed, so it is read in full.
        const offset = Number(new URL(url, service!.url).searchParams.get('offset'));
        if (url.startsWith('/api/images/?') && deleted.length === 0 && offset > firstRow)
          deleted.push(dataset.deleteId(idsOf(big)[0]!));
        // Each reading of its list: its last record goes before the second page is served, so the count moves.
        if (url.startsWith(`/api/collections/${big}/images/?`) && url.endsWith('&offset=100'))
          deleted.push(dataset.deleteId(Math.max(...idsOf(big))));
        return undefined;
      };
      service = await startService({ records: 1000, seed: 53, faults: { plan } });
      const sizes = new Map<number, number>();
      for (const id of service.dataset.ids()) {
        const cid = service.dataset.collectionIdOf(id)!;
        sizes.set(cid, (sizes.get(cid) ?? 0) + 1);
      }
      const [big, size] = [...sizes].sort((a, b) => b[1] - a[1])[0]!;
      expect(size).toBeGreaterThan(250); // three pages and more: the deleted last record is past the second page
      const firstRow = service.dataset.ids().findIndex((id) => service!.dataset.collectionIdOf(id) === big);
      const run = await snapshot(service, '--concurrency', '1');
      expect(deleted.length).toBe(4); // the pass's, and one in each of the three readings of the list
      const ids = new Set(await writtenIds(service));
      expect(deleted.filter((id) => ids.has(id))).toEqual([]);
      expect(ids).toEqual(new Set(service.servedIds()));
      expect(run.code).toBe(0);
      const manifest = await readManifest(out);
      expect(manifest).toMatchObject({ complete: true, missing: 0 });
      expect(manifest.completeness.reconciled.find((c) => c.id === big)?.removed).toBe(deleted.length);
    },
  );

  it(
    'records deleted and inserted at random rows during the first 40 requests (6,000 records, pages of 100): ' +
      'the snapshot equals the list at the end, and images and collections agree',
    async () => {
      let requests = 0;
      const random = new Random(7);
      const deleted: number[] = [];
      const plan: FaultOptions['plan'] = () => {
        if (++requests <= 40) {
          const { dataset } = service!;
          deleted.push(...dataset.delete(2, random));
          dataset.insert(2, random);
        }
        return undefined;
      };
      service = await startService({ records: 6000, seed: 52, faults: { plan } });
      const run = await snapshot(service, '--concurrency', '2');
      expect(run.code).toBe(0);
      expect(deleted.length).toBe(80);
      const ids = await writtenIds(service);
      expect(new Set(ids)).toEqual(new Set(service.servedIds()));
      expect(await collectionsNotListed()).toEqual([]);
      const manifest = await readManifest(out);
      expect(manifest).toMatchObject({ complete: true, missing: 0 });
      expect(manifest.completeness.reconciliation.removed).toBeGreaterThan(0);
      expect(manifest.completeness.reconciliation.removed).toBeLessThanOrEqual(deleted.length);
    },
  );
});
