/**
 * Every kind of change between runs the bundled service models (a record edited, deleted and
 * inserted, a collection made private, one made public again, one deleted, a new one), made through
 * `RunningService.change`; then an incremental `--snapshot` run and a `--full` run write the same data files, byte for
 * byte, in every format. Real CLI, the bundled service over loopback HTTP.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startService } from '../../../src/service/index.js';
import { fixtureLines } from '../../helpers/fixture-service.js';
import {
  expectExact,
  expectSameDataFiles,
  incrementalFixture,
  manifestOf,
  snapshot,
  snapshotInProcess,
} from '../../helpers/incremental-snapshots.js';
import { openDuckDB, query, sqlString } from '../../helpers/readers.js';

const { serve, newDir } = incrementalFixture();

describe('changes between runs', () => {
  it('an incremental run after every kind of change writes the bytes of a full run', async () => {
    const s = await serve(1500, 71);
    const [base, full] = [await newDir(), await newDir()];
    expect((await snapshot(s, base)).code).toBe(0);
    s.change({ kind: 'private', collections: 2, seed: 1 });
    expect((await snapshot(s, base)).code).toBe(0);
    for (const [kind, seed] of [
      ['edit', 2],
      ['delete', 3],
      ['insert', 4],
      ['private', 5],
      ['public', 6],
      ['delete-collection', 7],
      ['new-collection', 8],
    ] as const) {
      s.change({ kind, collections: 1, seed });
    }
    const run = await snapshot(s, base);
    expect(run.code).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ kind: 'incremental', complete: true, rejects: 2 });
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });
});

describe('what an incremental run says changed', () => {
  it('gives the rows it read against the base rows they replace, and a new collection adds one row', async () => {
    // The real records and generated ones, none past them: a new collection's id follows the generated ones'.
    const s = await startService({ records: 600, seed: 12, data: fixtureLines() });
    onTestFinished(() => s.close());
    const base = await newDir();
    await snapshotInProcess(s, base);
    const collections = async () => {
      const file = sqlString(join(base, 'latest', 'collections.parquet'));
      return query(await openDuckDB(), `SELECT id, number_of_images FROM read_parquet(${file}) ORDER BY id`);
    };
    const before = await collections();
    const proof = (stdout: string) => /^ {2}proof {5}(.*)$/m.exec(stdout)?.[1] ?? stdout;
    const held = (stdout: string) => {
      const words = /read in id order \((\d+) records in place of the base's (\d+): ([+-]\d+)\)/.exec(proof(stdout));
      expect(words, proof(stdout)).not.toBeNull();
      return words!.slice(1).map(Number);
    };
    s.change({ kind: 'delete', collections: 3, seed: 2 });
    const deleted = await snapshot(s, base);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(proof(deleted.stdout)).toContain('3 collections new or changed, read in id order (');
    const [read, replaced, change] = held(deleted.stdout);
    expect([replaced! - read!, change]).toEqual([3, -3]);
    // An insert into an earlier collection, then a new collection past every id: one row more in the table.
    s.change({ kind: 'insert', collections: 1, seed: 3 });
    const made = s.change({ kind: 'new-collection', collections: 1, seed: 4 });
    const added = await snapshot(s, base);
    expect(added.code, added.stderr).toBe(0);
    expect(proof(added.stdout)).toContain('2 collections new or changed, read in id order (');
    const [readNow, replacedNow, changeNow] = held(added.stdout);
    expect([readNow! - replacedNow!, changeNow]).toEqual([1 + made.records.length, 1 + made.records.length]);
    const after = await collections();
    expect(after).toHaveLength(before.length + 1);
    expect(after.find((c) => c['id'] === BigInt(made.collections[0]!))).toEqual({
      id: BigInt(made.collections[0]!),
      number_of_images: BigInt(made.records.length),
    });
    await expectExact(s, base);
  });
});
