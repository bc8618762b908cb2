/**
 * The collections a service knows, public and private, and the order `/api/collections/` scans them in.
 * Generated collections come into being as the generator reaches their ids (with the empty ones between
 * ids it draws); collections of given records are known from the start. Collections made after the start
 * (by inserts) are dated by a virtual clock that every insert and delete advances.
 */
import { utcMicros } from '../../text/berlin-time.js';
import { collectionOf, collectionRange } from './collection-layout.js';
import { isPrivateCollection, privateToken } from './collection-privacy.js';
import { collectionName } from './collection-profile.js';
import type { Random } from '../basics/random.js';
import { type ListOrder, realOrder } from '../basics/real-order.js';

/** One collection. */
export interface CollectionEntry {
  readonly cid: number;
  readonly private: boolean;
  /** The ids a generated collection covers, `[lo, hi)`; both 0 for a collection of given records. */
  readonly lo: number;
  readonly hi: number;
  /** Ids of the given records in it, ascending; empty for a generated collection. */
  readonly givenIds: readonly number[];
  /** `" (2)"` and on when an earlier collection has the same name (names are unique); else "". */
  readonly nameSuffix: string;
  /** When it was made, for a collection made after the start (UTC microseconds). */
  readonly createdAt?: number;
  /** When an item was last inserted into it or deleted from it (UTC microseconds). */
  touched?: number;
  /** The latest modify time of its items while none has changed, once computed. */
  itemsModified?: number;
}

/** A step of the generator past this many ids is the jump to sparse ids: no collection was made in between. */
const GAP = 600;
/** The virtual clock's start, after every generated time. */
const VIRTUAL_NOW = utcMicros(2026, 3, 2);

/** The collections of one data set. */
export class CollectionRegistry {
  private readonly entries = new Map<number, CollectionEntry>();
  /** Collections deleted since the start: their ids are never made again, as Django's keys are not. */
  private readonly deleted = new Set<number>();
  /** Public collection ids in scan order. */
  private order: number[] = [];
  private readonly names = new Map<string, number>();
  private lastId = 0;
  private lastCid = 0;
  private started = false;
  private mutations = 0;
  private tokens: Map<string, number> | null = null;

  /** Starts with the collections of given records (collection id → their record ids, ascending) and their names. */
  constructor(
    private readonly seed: number,
    given: ReadonlyMap<number, readonly number[]>,
    givenName: (cid: number) => string,
  ) {
    for (const [cid, givenIds] of [...given].sort((a, b) => a[0] - b[0]))
      this.add({ cid, private: false, lo: 0, hi: 0, givenIds }, givenName(cid));
  }

  /** Number of public collections: the `count` of `/api/collections/`. */
  get publicCount(): number {
    return this.order.length;
  }

  /** The public collection at a position of the scan order. */
  publicAt(index: number): number {
    return this.order[index] as number;
  }

  /** Public collection ids in scan order. */
  publicIds(): number[] {
    return [...this.order];
  }

  /** Every collection, public and private, by ascending id. */
  all(): CollectionEntry[] {
    return [...this.entries.values()].sort((a, b) => a.cid - b.cid);
  }

  /** The collection with this id. */
  get(cid: number): CollectionEntry | undefined {
    return this.entries.get(cid);
  }

  /** Whether the collection was deleted: no endpoint finds it, and it is never made again. */
  wasDeleted(cid: number): boolean {
    return this.deleted.has(cid);
  }

  /** The private collection with this token. */
  byToken(token: string): CollectionEntry | undefined {
    if (this.tokens === null) {
      this.tokens = new Map();
      for (const entry of this.entries.values()) {
        if (entry.private) this.tokens.set(privateToken(this.seed, entry.cid), entry.cid);
      }
    }
    const cid = this.tokens.get(token);
    return cid === undefined ? undefined : this.entries.get(cid);
  }

  /**
   * The generator drew `id` of collection `cid`: it exists, and so, when `id` is past every id drawn, does every
   * collection stepped over since the last. An id below that (an insert into an earlier collection) steps over none.
   */
  reach(id: number, cid: number = collectionOf(this.seed, id)): void {
    if (id > this.lastId) {
      for (let c = this.lastCid; id - this.lastId <= GAP && c !== cid && c !== 0;) {
        c = collectionOf(this.seed, (collectionRange(this.seed, c) as { hi: number }).hi);
        this.addGenerated(c);
      }
      this.lastId = id;
      this.lastCid = cid;
    }
    this.addGenerated(cid);
  }

  /**
   * Ends the start: the scan order is by id with about 2% of rows a few places off, or the real order (real-order.ts);
   * later collections go last.
   */
  finish(random: Random, order: ListOrder = 'id'): void {
    const cids = [...this.entries.values()].filter((entry) => !entry.private).map((entry) => entry.cid);
    this.order = order === 'real' ? Array.from(realOrder(cids, random)) : cids.sort((a, b) => a - b);
    for (let i = 0; order === 'id' && i < this.order.length; i++) {
      if (random.chance(0.02)) {
        const j = Math.min(this.order.length - 1, i + random.int(1, 50));
        [this.order[i], this.order[j]] = [this.order[j] as number, this.order[i] as number];
      }
    }
    this.started = true;
  }

  /** The virtual clock's next reading: a second later for every call. */
  tick(): number {
    this.mutations++;
    return VIRTUAL_NOW + this.mutations * 1_000_000;
  }

  /** An item of the collection was inserted or deleted at `at`. */
  touch(cid: number, at: number): void {
    const entry = this.entries.get(cid);
    if (entry !== undefined) entry.touched = at;
  }

  /**
   * Makes a collection private at `at` (UTC microseconds): it leaves the scan, its token opens it; or public again: it
   * joins the end of the scan, as an updated row.
   */
  setPrivate(cid: number, isPrivate: boolean, at: number): void {
    const entry = this.entries.get(cid);
    if (entry === undefined || entry.private === isPrivate) return;
    this.entries.set(cid, { ...entry, private: isPrivate, touched: at });
    this.order = isPrivate ? this.order.filter((c) => c !== cid) : [...this.order, cid];
    if (isPrivate) this.tokens?.set(privateToken(this.seed, cid), cid);
    else this.tokens?.delete(privateToken(this.seed, cid));
  }

  /** Deletes a collection: no endpoint finds it any more, and the generator's reach never makes it again. */
  remove(cid: number): void {
    const entry = this.entries.get(cid);
    if (entry === undefined) return;
    this.entries.delete(cid);
    this.deleted.add(cid);
    this.order = this.order.filter((c) => c !== cid);
    if (entry.private) this.tokens?.delete(privateToken(this.seed, cid));
  }

  /** Moves up to `count` random public collections to the end of the scan order, as updated rows move in the heap. */
  moveToEnd(count: number, random: Random): number[] {
    const moved: number[] = [];
    for (let k = 0; k < count && this.order.length > 1; k++) {
      const [cid] = this.order.splice(random.int(0, this.order.length - 2), 1) as [number];
      this.order.push(cid);
      moved.push(cid);
    }
    return moved;
  }

  private addGenerated(cid: number): void {
    if (this.entries.has(cid) || this.deleted.has(cid)) return;
    const range = collectionRange(this.seed, cid) as { lo: number; hi: number };
    this.add(
      { cid, private: isPrivateCollection(this.seed, cid), ...range, givenIds: [] },
      collectionName(this.seed, cid),
    );
  }

  /** Adds a collection named `name`; one made after the start is dated now and joins the end of the scan. */
  private add(made: Pick<CollectionEntry, 'cid' | 'private' | 'lo' | 'hi' | 'givenIds'>, name: string): void {
    const uses = (this.names.get(name) ?? 0) + 1;
    this.names.set(name, uses);
    const entry: CollectionEntry = { ...made, nameSuffix: uses === 1 ? '' : ` (${uses})` };
    const { cid } = entry;
    if (this.started) {
      (entry as { createdAt?: number }).createdAt = this.tick();
      if (!entry.private) this.order.push(cid);
    }
    if (entry.private) this.tokens?.set(privateToken(this.seed, cid), cid);
    this.entries.set(cid, entry);
  }
}
