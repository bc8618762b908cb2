/**
 * A least-recently-used cache bounded by the total weight of what it holds (rows, records), keeping at least the
 * entry last used: the staged pages read back by the write and by the conflict check.
 */

/** Values by key, most recently used last; loads a value it does not hold. */
export class WeightedLru<V> {
  private readonly entries = new Map<string, V>();
  private weight = 0;

  constructor(
    /** Total weight held at most (beyond the entry last used). */
    private readonly maxWeight: number,
    private readonly weightOf: (value: V) => number,
  ) {}

  /** The value of `key`: held, or loaded by `load` and held, dropping the least recently used beyond the bound. */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    let value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key); // re-insert: Map order is recency
    } else {
      value = await load();
      this.weight += this.weightOf(value);
      for (const [oldest, held] of this.entries) {
        if (this.weight <= this.maxWeight) break;
        this.entries.delete(oldest);
        this.weight -= this.weightOf(held);
      }
    }
    this.entries.set(key, value);
    return value;
  }
}
