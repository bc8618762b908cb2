import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DateDay, Field, Int64, Schema } from 'apache-arrow';
import { diffSnapshots, type DiffEntry } from '../../src/diff/diff-snapshots.js';
import { DiffError } from '../../src/snapshot/diff-error.js';
import { batchOf, bool, category, collect, float64, int64, sideOf, utf8, type ColumnValues } from './sides.js';

/** Batches of `id` and `x` (float64) cut at the given sizes. */
function batches(rows: readonly [number, number | null][], sizes: readonly number[] = [rows.length]) {
  const out = [];
  let at = 0;
  for (const size of sizes) {
    const part = rows.slice(at, at + size);
    at += size;
    out.push(batchOf({ id: int64(part.map((r) => r[0])), x: float64(part.map((r) => r[1])) }));
  }
  if (at < rows.length) throw new Error('test: sizes do not cover the rows');
  return out;
}

const EMPTY = batches([]);
const X_SCHEMA = EMPTY[0]!.schema;
/** The images' diffContext of a record whose side has neither collection_id nor name. */
const NONE = { collection_id: null, name: null };

describe('diffSnapshots: the merge join', () => {
  it('finds nothing between two empty snapshots', async () => {
    const diff = diffSnapshots(sideOf('old', EMPTY), sideOf('new', EMPTY));
    const { pages } = await collect(diff);
    expect(pages).toEqual([]);
    expect(diff.totals).toMatchObject({ added: 0, removed: 0, changed: 0, unchanged: 0, oldRows: 0, newRows: 0 });
    expect(diff.totals.fields.size).toBe(0);
  });

  it('reports every record as added when the old snapshot is empty', async () => {
    const diff = diffSnapshots(
      sideOf('old', EMPTY),
      sideOf(
        'new',
        batches(
          [
            [1, 1],
            [2, 2],
            [5, 5],
          ],
          [2, 0, 1],
        ),
      ),
    );
    const { entries } = await collect(diff);
    expect(entries).toEqual([1, 2, 5].map((id) => ({ id, change: 'added', changed_fields: [], context: NONE })));
    expect(diff.totals).toMatchObject({ added: 3, removed: 0, changed: 0, unchanged: 0, oldRows: 0, newRows: 3 });
  });

  it('reports every record as removed when the new snapshot is empty', async () => {
    const diff = diffSnapshots(
      sideOf(
        'old',
        batches(
          [
            [3, 1],
            [4, null],
          ],
          [1, 1],
        ),
      ),
      sideOf('new', EMPTY),
    );
    const { entries } = await collect(diff);
    expect(entries).toEqual([3, 4].map((id) => ({ id, change: 'removed', changed_fields: [], context: NONE })));
    expect(diff.totals).toMatchObject({ added: 0, removed: 2, changed: 0, unchanged: 0, oldRows: 2, newRows: 0 });
  });

  it('interleaves added, removed, changed and unchanged records in id order across unaligned batches', async () => {
    const old = batches(
      [
        [1, 1],
        [2, 2],
        [4, 4],
        [6, 6],
        [7, null],
        [9, 9],
      ],
      [1, 3, 2],
    );
    const now = batches(
      [
        [2, 2],
        [3, 3],
        [4, 40],
        [7, 0],
        [8, 8],
        [9, 9],
        [10, 10],
      ],
      [4, 1, 0, 2],
    );
    const diff = diffSnapshots(sideOf('old', old), sideOf('new', now));
    const { entries } = await collect(diff);
    expect(entries).toEqual([
      { id: 1, change: 'removed', changed_fields: [], context: NONE },
      { id: 3, change: 'added', changed_fields: [], context: NONE },
      { id: 4, change: 'changed', changed_fields: ['x'], context: NONE },
      { id: 6, change: 'removed', changed_fields: [], context: NONE },
      { id: 7, change: 'changed', changed_fields: ['x'], context: NONE },
      { id: 8, change: 'added', changed_fields: [], context: NONE },
      { id: 10, change: 'added', changed_fields: [], context: NONE },
    ]);
    expect(diff.totals).toMatchObject({ added: 3, removed: 2, changed: 2, unchanged: 2, oldRows: 6, newRows: 7 });
    expect([...diff.totals.fields]).toEqual([['x', 2]]);
  });

  it('yields pages of exactly batchSize entries, the last one shorter', async () => {
    const rows = Array.from({ length: 23 }, (_, i) => [i + 1, i] as [number, number]);
    const diff = diffSnapshots(sideOf('old', EMPTY), sideOf('new', batches(rows, [7, 7, 9])), { batchSize: 5 });
    const { pages, entries } = await collect(diff);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(entries.map((e) => e.id)).toEqual(rows.map((r) => r[0]));
  });

  it('agrees with a model on random snapshots cut into random batches', async () => {
    const value = fc.constantFrom<number | null>(null, 0, -0, 1, 2.5, NaN);
    const snapshot = fc.dictionary(fc.integer({ min: 1, max: 60 }).map(String), value, { maxKeys: 40 });
    const cuts = fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        snapshot,
        snapshot,
        cuts,
        cuts,
        fc.integer({ min: 1, max: 7 }),
        async (oldMap, newMap, oldCuts, newCuts, batchSize) => {
          const rows = (m: Record<string, number | null>) =>
            Object.entries(m)
              .map(([k, v]) => [Number(k), v] as [number, number | null])
              .sort((a, b) => a[0] - b[0]);
          const sizes = (n: number, cut: number[]) => {
            const out: number[] = [];
            let left = n;
            for (const c of cut) {
              if (left === 0 && c !== 0) continue;
              out.push(Math.min(c, left));
              left -= Math.min(c, left);
            }
            return left > 0 ? [...out, left] : out;
          };
          const oldRows = rows(oldMap);
          const newRows = rows(newMap);
          const oldSide = sideOf('old', batches(oldRows, sizes(oldRows.length, oldCuts)), X_SCHEMA);
          const newSide = sideOf('new', batches(newRows, sizes(newRows.length, newCuts)), X_SCHEMA);
          const diff = diffSnapshots(oldSide, newSide, { batchSize });
          const { pages, entries } = await collect(diff);

          const ids = [...new Set([...oldRows, ...newRows].map((r) => r[0]))].sort((a, b) => a - b);
          const expected: DiffEntry[] = [];
          let unchanged = 0;
          for (const id of ids) {
            const inOld = String(id) in oldMap;
            const inNew = String(id) in newMap;
            if (!inOld) expected.push({ id, change: 'added', changed_fields: [], context: NONE });
            else if (!inNew) expected.push({ id, change: 'removed', changed_fields: [], context: NONE });
            else if (!Object.is(oldMap[String(id)], newMap[String(id)]))
              expected.push({ id, change: 'changed', changed_fields: ['x'], context: NONE });
            else unchanged++;
          }
          expect(entries).toEqual(expected);
          expect(pages.slice(0, -1).every((p) => p.length === batchSize)).toBe(true);
          expect(diff.totals).toMatchObject({
            added: expected.filter((e) => e.change === 'added').length,
            removed: expected.filter((e) => e.change === 'removed').length,
            changed: expected.filter((e) => e.change === 'changed').length,
            unchanged,
            oldRows: oldRows.length,
            newRows: newRows.length,
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('releases both sides when the reader stops early', async () => {
    const closed: string[] = [];
    const rows = Array.from({ length: 50 }, (_, i) => [i + 1, i] as [number, number]);
    const diff = diffSnapshots(
      sideOf('old', batches(rows, [10, 10, 30]), undefined, () => closed.push('old')),
      sideOf('new', EMPTY, undefined, () => closed.push('new')),
      { batchSize: 4 },
    );
    for await (const page of diff) {
      expect(page).toHaveLength(4);
      break;
    }
    expect(closed.sort()).toEqual(['new', 'old']);
  });

  it('can be read only once', async () => {
    const diff = diffSnapshots(sideOf('old', EMPTY), sideOf('new', EMPTY));
    await collect(diff);
    expect(() => diff[Symbol.asyncIterator]()).toThrow(/can be read only once/);
  });
});

describe('diffSnapshots: ids', () => {
  const expectBadId = async (rows: (number | bigint | null)[], message: RegExp) => {
    const diff = diffSnapshots(
      sideOf('snap/images.parquet', [batchOf({ id: int64(rows.slice(0, 2)) }), batchOf({ id: int64(rows.slice(2)) })]),
      sideOf('new', [batchOf({ id: int64([]) })]),
    );
    const error = await collect(diff).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DiffError);
    expect((error as DiffError).code).toBe('DIFF_BAD_ID');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  };

  it('refuses ids out of order, across batches too', async () => {
    await expectBadId(
      [1, 5, 3],
      /^diff: snap\/images\.parquet is not in ascending id order: row 3 has id 3 after id 5$/,
    );
  });

  it('refuses a repeated id', async () => {
    await expectBadId([1, 2, 2], /row 3 has id 2 after id 2 \(a repeated id\)$/);
  });

  it('refuses a null id', async () => {
    await expectBadId([1, null], /^diff: snap\/images\.parquet: row 2 has a null id$/);
  });

  it('refuses an id beyond the safe integers', async () => {
    await expectBadId([1, 2n ** 53n + 1n], /row 2 has id 9007199254740993, beyond the safe integers$/);
  });

  it('refuses a snapshot without an integer id column at once', () => {
    const noId = sideOf('a.parquet', [batchOf({ x: float64([1]) })]);
    expect(() => diffSnapshots(noId, sideOf('b', EMPTY))).toThrow(/^diff: a\.parquet has no "id" column$/);
    const textId = sideOf('b.arrow', [batchOf({ id: utf8(['1']) })]);
    expect(() => diffSnapshots(sideOf('a', EMPTY), textId)).toThrow(
      /^diff: b\.arrow has an "id" column of type Utf8, not an integer$/,
    );
  });
});

describe('diffSnapshots: columns', () => {
  const two = (id: number, columns: Record<string, ColumnValues>) =>
    sideOf(`s${id}`, [batchOf({ id: int64([1, 2]), ...columns })]);

  it('names the changed fields in output column order, whatever the file order', async () => {
    const old = two(1, {
      name: utf8(['a', 'b']),
      url: utf8(['u1', 'u2']),
      age: float64([1, 2]),
      is_valid: bool([true, null]),
    });
    const now = two(2, {
      is_valid: bool([false, null]),
      age: float64([1, 3]),
      url: utf8(['u1!', 'u2']),
      name: utf8(['a', 'c']),
    });
    const diff = diffSnapshots(old, now);
    const { entries } = await collect(diff);
    expect(entries).toEqual([
      { id: 1, change: 'changed', changed_fields: ['url', 'is_valid'], context: { collection_id: null, name: 'a' } },
      { id: 2, change: 'changed', changed_fields: ['name', 'age'], context: { collection_id: null, name: 'c' } },
    ]);
    expect(diff.schema.compared).toEqual(['url', 'name', 'is_valid', 'age']);
    expect(Object.fromEntries(diff.totals.fields)).toEqual({ url: 1, name: 1, is_valid: 1, age: 1 });
  });

  it('compares a category by its text: dictionary-encoded against plain strings', async () => {
    const old = two(1, { map_type: category(['T map', null]) });
    const now = two(2, { map_type: utf8(['T map', null]) });
    const diff = diffSnapshots(old, now);
    expect((await collect(diff)).entries).toEqual([]);
    expect(diff.totals.unchanged).toBe(2);
  });

  it('counts a column present on one side only as a changed field of every record in both, and says so', async () => {
    const old = sideOf('old', [
      batchOf({ id: int64([1, 2, 3]), gone: utf8([null, null, null]), x: float64([1, 2, 3]) }),
    ]);
    const now = sideOf('new', [batchOf({ id: int64([2, 3, 4]), x: float64([2, 30, 4]), fresh: int64([null, 5, 6]) })]);
    const diff = diffSnapshots(old, now);
    const { entries } = await collect(diff);
    expect(entries).toEqual([
      { id: 1, change: 'removed', changed_fields: [], context: NONE },
      { id: 2, change: 'changed', changed_fields: ['gone', 'fresh'], context: NONE },
      { id: 3, change: 'changed', changed_fields: ['gone', 'x', 'fresh'], context: NONE },
      { id: 4, change: 'added', changed_fields: [], context: NONE },
    ]);
    expect(diff.schema).toMatchObject({ compared: ['x'], onlyInOld: ['gone'], onlyInNew: ['fresh'], retyped: [] });
    expect(diff.totals).toMatchObject({ changed: 2, unchanged: 0 });
  });

  it(
    'counts a column whose values became incomparable (int64 to string) as changed in ' + 'every record in both',
    async () => {
      const diff = diffSnapshots(two(1, { file_size: int64([1, null]) }), two(2, { file_size: utf8(['1', null]) }));
      const { entries } = await collect(diff);
      expect(entries.map((e) => e.changed_fields)).toEqual([['file_size'], ['file_size']]);
      expect(diff.schema.retyped).toEqual([{ name: 'file_size', old: 'Int64', new: 'Utf8' }]);
    },
  );

  it('reports the schema versions of both sides', () => {
    const withVersion = (v: string) =>
      sideOf('s', [], new Schema([new Field('id', new Int64())], new Map([['img-etl.schema_version', v]])));
    const diff = diffSnapshots(withVersion('1'), withVersion('2'));
    expect(diff.schema).toMatchObject({ oldVersion: '1', newVersion: '2' });
  });

  it('refuses a column type it cannot compare, naming the column and the file', () => {
    const dated = (path: string) =>
      sideOf(path, [], new Schema([new Field('id', new Int64()), new Field('when', new DateDay())]));
    expect(() => diffSnapshots(dated('odd.arrow'), dated('b'))).toThrow(
      /^diff: column "when" of odd\.arrow has type Date32<DAY>, which diff cannot compare$/,
    );
  });
});
