import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdMap, type IdSlots } from '../../../src/extract/staging/id-map.js';

/** Ids of every kind a map must take: dense small ones, ones past the array's bound, negative, fractional, huge. */
const anyId = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 2, arbitrary: fc.integer({ min: 300, max: 5000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -50, max: -1 }) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 400, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER, -0) },
);

function holdsLikeAMap(slots: IdSlots, maxValue: number) {
  return fc.property(
    fc.integer({ min: 1, max: 64 }),
    fc.array(fc.tuple(anyId, fc.integer({ min: 0, max: maxValue })), { maxLength: 400, size: 'max' }),
    fc.array(anyId, { maxLength: 50 }),
    (minDenseSlots, sets, probes) => {
      const map = new IdMap(slots, minDenseSlots);
      const model = new Map<number, number>();
      for (const [id, value] of sets) {
        map.set(id, value);
        model.set(id, value);
        expect(map.size).toBe(model.size);
        expect(map.get(id)).toBe(value);
      }
      for (const id of [...model.keys(), ...probes]) {
        expect(map.get(id)).toBe(model.get(id));
        expect(map.has(id)).toBe(model.has(id));
      }
      expect([...map.keysAscending()]).toEqual(
        [...model.keys()].sort((a, b) => a - b).map((id) => (Object.is(id, -0) ? 0 : id)),
      );
    },
  );
}

describe('IdMap', () => {
  it('holds what a Map holds, for any ids and values (Float64Array slots)', () => {
    fc.assert(holdsLikeAMap(Float64Array, 2 ** 40));
  });

  it('holds what a Map holds with byte slots, values past 254 included', () => {
    fc.assert(holdsLikeAMap(Uint8Array, 600));
  });

  it('keeps dense ids in the array, within its bound, and a far id in the fallback', () => {
    const map = new IdMap(Float64Array, 1024);
    for (let id = 1; id <= 5000; id++) map.set(id, id * 7);
    map.set(2 ** 40, 1);
    expect(map.size).toBe(5001);
    expect(map.get(4321)).toBe(4321 * 7);
    expect(map.get(2 ** 40)).toBe(1);
    expect(map.get(5001)).toBeUndefined();
    const internals = map as unknown as { dense: Float64Array; sparse: Map<number, number> };
    expect(internals.dense.length).toBeGreaterThan(5000);
    expect(internals.dense.length).toBeLessThanOrEqual(4 * 5001);
    expect([...internals.sparse.keys()]).toEqual([2 ** 40]);
  });

  it('moves a fallback id into the array once the array grows to cover it', () => {
    const map = new IdMap(Float64Array, 1024);
    map.set(3000, 5); // beyond the bound of an empty map
    const internals = map as unknown as { sparse: Map<number, number> };
    expect([...internals.sparse.keys()]).toEqual([3000]);
    for (let id = 1; id <= 2100; id++) map.set(id, id);
    expect(internals.sparse.size).toBe(0);
    expect(map.get(3000)).toBe(5);
    expect(map.size).toBe(2101);
  });

  it('refuses a value that is not a non-negative safe integer', () => {
    const map = new IdMap();
    for (const value of [-1, 1.5, NaN, 2 ** 53]) expect(() => map.set(1, value)).toThrow(/IdMap: value/);
  });
});
