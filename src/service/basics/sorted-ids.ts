/** A set of ids kept sorted in a typed array: membership and ranges by binary search, 4 bytes an id. */
export class SortedIds {
  private ids: Uint32Array;
  private length: number;

  /** Takes the ids, in any order (copied, then sorted). */
  constructor(ids: ArrayLike<number> = []) {
    this.ids = Uint32Array.from(ids).sort();
    this.length = this.ids.length;
  }

  /** Number of ids. */
  get size(): number {
    return this.length;
  }

  /** The id at a sorted position. */
  at(index: number): number {
    return this.ids[index] as number;
  }

  /** Whether the id is in the set. */
  has(id: number): boolean {
    const i = this.lowerBound(id);
    return i < this.length && this.ids[i] === id;
  }

  /** The position of the first id not less than `id` (size when there is none). */
  lowerBound(id: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ids[mid] as number) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds an id (no effect if present). */
  add(id: number): void {
    const i = this.lowerBound(id);
    if (i < this.length && this.ids[i] === id) return;
    if (this.length === this.ids.length) {
      const bigger = new Uint32Array(Math.ceil(this.length * 1.5) + 16);
      bigger.set(this.ids.subarray(0, this.length));
      this.ids = bigger;
    }
    this.ids.copyWithin(i + 1, i, this.length);
    this.ids[i] = id;
    this.length++;
  }

  /** Removes an id (no effect if absent). */
  delete(id: number): void {
    const i = this.lowerBound(id);
    if (i >= this.length || this.ids[i] !== id) return;
    this.ids.copyWithin(i, i + 1, this.length);
    this.length--;
  }
}
