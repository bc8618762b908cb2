/**
 * The ids a service lists, in served order, and the log of every change to that order. The order as it stood before
 * the first change is kept, so tests can tell which ids existed for a whole run.
 */
import { SortedIds } from '../basics/sorted-ids.js';

/**
 * One change to the list: a record inserted, deleted, moved to the end (an updated row), hidden (its collection
 * was made private: it exists and is no longer listed), shown (listed again, its collection made public again), or
 * edited in place.
 */
export interface Mutation {
  kind: 'insert' | 'delete' | 'move' | 'hide' | 'show' | 'edit';
  id: number;
  /**
   * Row index the record was inserted at, deleted from, moved from, or edited at; -1 for an image deleted while it was
   * not listed (its collection private, deleted with it).
   */
  position: number;
}

/** The listed ids in served order (a typed array, 4 bytes a row), with a sorted index and the log of changes. */
export class ListedIds {
  private order: Uint32Array;
  private length: number;
  private initial: Uint32Array | null = null;
  private readonly log: Mutation[] = [];
  /** Ids deleted since the start, listed or not: never listed again, as Django's keys are never reused. */
  private readonly deleted = new Set<number>();
  /** The listed ids, sorted; built on first use, then kept up to date. */
  private sorted: SortedIds | null = null;

  /** Takes the served order (not copied). */
  constructor(order: Uint32Array) {
    this.order = order;
    this.length = order.length;
  }

  /** Number of ids listed now. */
  get size(): number {
    return this.length;
  }

  /** The id at a row index of the current order. */
  at(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.length)
      throw new RangeError(`service: row ${index} is outside 0..${this.length - 1}`);
    return this.order[index] as number;
  }

  /** All ids in current order. */
  ids(): number[] {
    return Array.from(this.order.subarray(0, this.length));
  }

  /** Whether the id is listed now. */
  has(id: number): boolean {
    return this.sortedIds().has(id);
  }

  /** Whether the id was deleted since the start (an insert never brings it back). */
  wasDeleted(id: number): boolean {
    return this.deleted.has(id);
  }

  /** The listed ids in ascending order (kept up to date by the changes). */
  sortedIds(): SortedIds {
    if (this.sorted === null) this.sorted = new SortedIds(this.order.subarray(0, this.length));
    return this.sorted;
  }

  /** The ids listed before the first change, in that order. */
  initialIds(): number[] {
    return Array.from(this.initial ?? this.order.subarray(0, this.length));
  }

  /** Every change since the start, oldest first. */
  mutations(): readonly Mutation[] {
    return this.log;
  }

  /** The ids of the changes of one kind, oldest first. */
  loggedIds(kind: Mutation['kind']): number[] {
    return this.log.filter((m) => m.kind === kind).map((m) => m.id);
  }

  /** Lists `id` at row `position` (0..size), logged as `kind`. */
  insertAt(position: number, id: number, kind: 'insert' | 'show'): void {
    this.snapshot();
    this.grow(this.length + 1);
    this.order.copyWithin(position + 1, position, this.length);
    this.order[position] = id;
    this.length++;
    this.sorted?.add(id);
    this.log.push({ kind, id, position });
  }

  /** Takes the id at row `position` out of the list, logged as a delete. Returns the id. */
  removeAt(position: number): number {
    this.snapshot();
    const id = this.order[position] as number;
    this.order.copyWithin(position, position + 1, this.length);
    this.length--;
    this.sorted?.delete(id);
    this.log.push({ kind: 'delete', id, position });
    this.deleted.add(id);
    return id;
  }

  /** Takes the ids out of the list, each logged as `kind`. Returns the changes logged, in list order. */
  remove(ids: readonly number[], kind: 'delete' | 'hide'): Mutation[] {
    this.snapshot();
    const logged = this.log.length;
    const leaving = new Set(ids);
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const id = this.order[i] as number;
      if (leaving.has(id)) {
        this.sorted?.delete(id);
        this.log.push({ kind, id, position: kept });
        if (kind === 'delete') this.deleted.add(id);
      } else this.order[kept++] = id;
    }
    this.length = kept;
    return this.log.slice(logged);
  }

  /**
   * Deletes ids that are not listed (the images of a private collection, deleted with it): never listed again, each
   * logged as a delete from row -1. Returns the changes logged.
   */
  deleteUnlisted(ids: readonly number[]): Mutation[] {
    this.snapshot();
    const logged = this.log.length;
    for (const id of ids) {
      this.log.push({ kind: 'delete', id, position: -1 });
      this.deleted.add(id);
    }
    return this.log.slice(logged);
  }

  /** Moves the id at row `position` to the end of the order, logged as a move. Returns the id. */
  moveToEnd(position: number): number {
    this.snapshot();
    const id = this.order[position] as number;
    this.order.copyWithin(position, position + 1, this.length);
    this.order[this.length - 1] = id;
    this.log.push({ kind: 'move', id, position });
    return id;
  }

  /** Logs an edit in place of the id at row `position` (the order does not change). Returns the id. */
  noteEdit(position: number): number {
    this.snapshot();
    const id = this.order[position] as number;
    this.log.push({ kind: 'edit', id, position });
    return id;
  }

  private snapshot(): void {
    if (this.initial === null) this.initial = this.order.slice(0, this.length);
  }

  private grow(needed: number): void {
    if (needed <= this.order.length) return;
    const bigger = new Uint32Array(Math.max(needed, Math.ceil(this.order.length * 1.5) + 16));
    bigger.set(this.order.subarray(0, this.length));
    this.order = bigger;
  }
}
