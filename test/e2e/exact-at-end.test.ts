/**
 * Issue 25, item 1: a snapshot equals the service's list as it stands when the run ends. Records deleted while the run
 * pages are not in it, records inserted are, and the collections whose images changed are read through their own
 * id-ordered list, which decides their rows. Real CLI, the bundled service over loopback HTTP, outputs read back by
 * DuckDB and apache-arrow and compared value by value with what the service serves at the end.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type FaultOptions, type RunningService } from '../../src/service/index.js';
import { Random } from '../../src/service/random.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { readManifest } from '../helpers/read-manifest.js';
import { expectedRowsOf, readArrowRows, readParquetRows } from '../helpers/read-snapshot.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

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
