/**
 * A compact map from record id to a small integer: a typed array indexed by id (outside the JavaScript heap, so the
 * garbage collector does not work harder as the run grows), with a Map for ids far outside the range held.
 */

/** Slots the array may have at least, whatever the size: 2^20 ids. */
const MIN_DENSE_SLOTS = 2 ** 20;
/** Slots the array may have per id held, beyond the minimum. */
const SLOTS_PER_ID = 4;
/** The array's first size. */
const FIRST_SLOTS = 1024;

/** The typed arrays a map can keep its slots in: Float64Array for any safe integer, Uint8Array for values to 254. */
export type IdSlots = Float64ArrayConstructor | Uint8ArrayConstructor;

export class IdMap {
  /** Value + 1 by id; 0 is absent. */
  private dense: Float64Array | Uint8Array;
  /** Ids (or values) that do not fit the array. */
  private readonly sparse = new Map<number, number>();
  /** Ids held in `dense`. */
  private denseCount = 0;
  /** The largest value + 1 a slot holds. */
  private readonly maxSlot: number;

  constructor(
    private readonly slots: IdSlots = Float64Array,
    /** Slots the array may have at least (a test makes it small to reach the fallback). */
    private readonly minDenseSlots = MIN_DENSE_SLOTS,
  ) {
    this.dense = new slots(0);
    this.maxSlot = slots === Uint8Array ? 255 : Number.MAX_SAFE_INTEGER;
  }

  /** Ids held. */
  get size(): number {
    return this.denseCount + this.sparse.size;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  get(id: number): number | undefined {
    const slot = this.dense[id]; // undefined for an id that is not an index of the array
    if (slot !== undefined && slot !== 0) return slot - 1;
    return this.sparse.size === 0 ? undefined : this.sparse.get(id);
  }

  /** Sets `id` to `value`, a non-negative safe integer. */
  set(id: number, value: number): void {
    if (!(Number.isSafeInteger(value) && value >= 0))
      throw new RangeError(`IdMap: value ${value} is not a non-negative safe integer`);
    const indexable = Number.isInteger(id) && id >= 0;
    if (indexable && id >= this.dense.length) this.grow(id);
    if (indexable && id < this.dense.length) {
      if (value + 1 <= this.maxSlot) {
        if (this.dense[id] === 0) {
          this.denseCount++;
          if (this.sparse.size > 0) this.sparse.delete(id);
        }
        this.dense[id] = value + 1;
        return;
      }
      if (this.dense[id] !== 0) {
        this.dense[id] = 0;
        this.denseCount--;
      }
    }
    this.sparse.set(id, value);
  }

  /** Removes `id`; false when it was not held. */
  delete(id: number): boolean {
    const slot = this.dense[id];
    if (slot !== undefined && slot !== 0) {
      this.dense[id] = 0;
      this.denseCount--;
      return true;
    }
    return this.sparse.delete(id);
  }

  /** The ids in ascending order. */
  *keysAscending(): IterableIterator<number> {
    const sparse = Float64Array.from(this.sparse.keys()).sort();
    const dense = this.dense;
    let s = 0;
    for (let id = 0; id < dense.length; id++) {
      if (dense[id] === 0) continue;
      while (s < sparse.length && sparse[s]! < id) yield sparse[s++]!;
      yield id;
    }
    while (s < sparse.length) yield sparse[s++]!;
  }

  /** Widens the array to take `id` if the bound allows, moving in the fallback ids it then covers. */
  private grow(id: number): void {
    const bound = Math.max(this.minDenseSlots, SLOTS_PER_ID * (this.size + 1));
    if (id >= bound) return;
    let length = Math.max(Math.min(FIRST_SLOTS, bound), this.dense.length, 1);
    while (length <= id) length *= 2;
    const dense = new this.slots(Math.min(length, bound));
    dense.set(this.dense);
    this.dense = dense;
    for (const [sparseId, value] of this.sparse) {
      if (Number.isInteger(sparseId) && sparseId >= 0 && sparseId < dense.length && value + 1 <= this.maxSlot) {
        this.sparse.delete(sparseId);
        dense[sparseId] = value + 1;
        this.denseCount++;
      }
    }
  }
}
