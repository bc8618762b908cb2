/** A binary min-heap of records keyed by id: the smallest id comes out first. */
export class IdHeap<T> {
  private readonly ids: number[] = [];
  private readonly items: T[] = [];

  /** Items held. */
  get size(): number {
    return this.ids.length;
  }

  /** The smallest id held; undefined when empty. */
  get minId(): number | undefined {
    return this.ids[0];
  }

  /** Adds an item under `id`. */
  push(id: number, item: T): void {
    const { ids, items } = this;
    let i = ids.length;
    ids.push(id);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ids[parent]! <= id) break;
      ids[i] = ids[parent]!;
      items[i] = items[parent]!;
      i = parent;
    }
    ids[i] = id;
    items[i] = item;
  }

  /** Removes and returns the item with the smallest id; undefined when empty. */
  pop(): T | undefined {
    const { ids, items } = this;
    if (ids.length === 0) return undefined;
    const top = items[0];
    const lastId = ids.pop()!;
    const lastItem = items.pop()!;
    const n = ids.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && ids[child + 1]! < ids[child]!) child++;
        if (ids[child]! >= lastId) break;
        ids[i] = ids[child]!;
        items[i] = items[child]!;
        i = child;
      }
      ids[i] = lastId;
      items[i] = lastItem;
    }
    return top;
  }
}
