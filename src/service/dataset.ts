/**
 * The listed data set: an ordered list of ids in a typed array plus a way to render any id's record
 * (given records by lookup, all others generated from (seed, id)), the generated images of private
 * collections (they exist and are never listed), and the collections. Mutations are logged so tests
 * can tell which ids existed for a whole run.
 */
import { generatedIdOrder, type IdUse, mixIdOrders } from './build-id-order.js';
import { collectionImageIds } from './collection-image-ids.js';
import { collectionOf } from './collection-layout.js';
import { isPrivateCollection, privateToken } from './collection-privacy.js';
import { CollectionRegistry } from './collection-registry.js';
import {
  type DataRecord,
  type DataRecordInput,
  NEUROVAULT_ORIGIN,
  prepareDataRecords,
  renderDataRecord,
} from './data-records.js';
import { generateRecordJson } from './generate-record.js';
import { givenCollectionProfile } from './given-collections.js';
import { hash32, Random } from './random.js';
import { editRecordJson, type RecordEdit } from './record-edits.js';
import { SortedIds } from './sorted-ids.js';

/**
 * One change to the list: a record inserted, deleted, moved to the end (an updated row), hidden (its collection
 * was made private: it exists and is no longer listed), shown (listed again, its collection made public again), or
 * edited in place.
 */
export interface Mutation {
  kind: 'insert' | 'delete' | 'move' | 'hide' | 'show' | 'edit';
  id: number;
  /** Row index the record was inserted at, deleted from, moved from, or edited at. */
  position: number;
}

/** What a data set is built from. */
export interface DatasetSource {
  /** Given records, served in this order; default none. */
  data?: readonly DataRecordInput[];
  /** Number of generated records mixed in; default 0. */
  records?: number;
  /** Generator seed; default 1. */
  seed?: number;
}

/** The ordered records a service lists. */
export class Dataset {
  /** Origin URLs are built on when no origin is passed (the running service sets its own). */
  origin: string = NEUROVAULT_ORIGIN;
  readonly seed: number;
  private order: Uint32Array;
  private length: number;
  private readonly given: Map<number, DataRecord>;
  private maxId: number;
  private initial: Uint32Array | null = null;
  private readonly log: Mutation[] = [];
  /** Inserted records: when they were uploaded, by the collections' virtual clock. */
  private readonly uploaded = new Map<number, number>();
  /** Edited records: their new modify time and name suffix, applied to their JSON as rendered. */
  private readonly edits = new Map<number, RecordEdit>();
  /** Collections made private by hideCollection: the hide mutations of their images, in list order. */
  private readonly madePrivate = new Map<number, Mutation[]>();
  /** The listed ids, sorted; built on first use, then kept up to date. */
  private sorted: SortedIds | null = null;
  /** Generated ids in private collections. */
  private readonly hidden: SortedIds;
  /** Collection ids of the given records: generated ids never fall in them. */
  private readonly givenCollections: ReadonlySet<number>;
  /** The collections, public and private. */
  readonly collections: CollectionRegistry;

  constructor(source: DatasetSource = {}) {
    const records = source.records ?? 0;
    const seed = source.seed ?? 1;
    if (!Number.isSafeInteger(records) || records < 0)
      throw new Error(`service: records must be a non-negative integer, got ${records}`);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new Error(`service: seed must be a non-negative integer, got ${seed}`);
    const given = prepareDataRecords(source.data ?? []);
    this.seed = seed;
    this.given = new Map(given.map((record) => [record.id, record]));
    const byCollection = new Map<number, number[]>();
    for (const record of given) {
      const cid = record.collectionId;
      if (cid !== undefined) byCollection.set(cid, [...(byCollection.get(cid) ?? []), record.id]);
    }
    for (const ids of byCollection.values()) ids.sort((a, b) => a - b);
    this.givenCollections = new Set(byCollection.keys());
    this.collections = new CollectionRegistry(seed, byCollection, (cid) => givenCollectionProfile(seed, cid, 0).name);
    const generated = generatedIdOrder(records, seed, (id) => this.use(id));
    this.collections.finish(new Random(hash32(seed, 0xc011ec)));
    const givenIds = given.map((record) => record.id);
    this.order = given.length === 0 ? generated.listed : mixIdOrders(givenIds, generated.listed);
    this.hidden = new SortedIds(generated.hidden);
    this.length = this.order.length;
    this.maxId = this.hidden.size > 0 ? this.hidden.at(this.hidden.size - 1) : 0;
    for (let i = 0; i < this.length; i++) this.maxId = Math.max(this.maxId, this.order[i] as number);
  }

  /** Number of records listed now (the `count` of a page). */
  get size(): number {
    return this.length;
  }

  /** The id at a row index of the current order. */
  idAt(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.length)
      throw new RangeError(`service: row ${index} is outside 0..${this.length - 1}`);
    return this.order[index] as number;
  }

  /** All ids in current order. */
  ids(): number[] {
    return Array.from(this.order.subarray(0, this.length));
  }

  /** Whether the id is listed now: it was listed at the start or inserted since, and not deleted. */
  has(id: number): boolean {
    return this.sortedIds().has(id);
  }

  /** The listed ids in ascending order (kept up to date by the mutations). */
  sortedIds(): SortedIds {
    if (this.sorted === null) this.sorted = new SortedIds(this.order.subarray(0, this.length));
    return this.sorted;
  }

  /** Whether the id is a generated image of a private collection: it exists and is never listed. */
  isPrivate(id: number): boolean {
    return this.hidden.has(id);
  }

  /** The ids of the images in private collections, ascending. */
  privateIds(): number[] {
    return Array.from({ length: this.hidden.size }, (_, i) => this.hidden.at(i));
  }

  /** The private token of the collection holding a private image; undefined for an image that is not private. */
  privateTokenOf(id: number): string | undefined {
    return this.isPrivate(id) ? privateToken(this.seed, collectionOf(this.seed, id)) : undefined;
  }

  /** The ids of the images in private collections, ascending, as a set. */
  hiddenIds(): SortedIds {
    return this.hidden;
  }

  /** Whether the id is one of the given (not generated) records. */
  isGiven(id: number): boolean {
    return this.given.has(id);
  }

  /** The given record with this id. */
  givenRecord(id: number): DataRecord | undefined {
    return this.given.get(id);
  }

  /** The collection an image belongs to: a given record's `collection_id`, a generated one's collection. */
  collectionIdOf(id: number): number | undefined {
    const given = this.given.get(id);
    return given ? given.collectionId : collectionOf(this.seed, id);
  }

  /** The record's JSON text exactly as served from `origin`. */
  recordJson(id: number, origin: string = this.origin): string {
    const given = this.given.get(id);
    const json = given
      ? renderDataRecord(given, origin)
      : generateRecordJson(this.seed, id, origin, this.uploaded.get(id));
    const edit = this.edits.get(id);
    return edit === undefined ? json : editRecordJson(json, edit);
  }

  /** When a record inserted by the mutation knobs was uploaded (UTC microseconds, virtual clock); else undefined. */
  uploadedAt(id: number): number | undefined {
    return this.uploaded.get(id);
  }

  /** The record at a row index, parsed, as served from `origin`. */
  recordAt(index: number, origin: string = this.origin): Record<string, unknown> {
    return JSON.parse(this.recordJson(this.idAt(index), origin)) as Record<string, unknown>;
  }

  /** Every record in current order, parsed, as served from `origin`. */
  *records(origin: string = this.origin): IterableIterator<Record<string, unknown>> {
    for (let i = 0; i < this.length; i++)
      yield JSON.parse(this.recordJson(this.order[i] as number, origin)) as Record<string, unknown>;
  }

  /** The ids listed before the first mutation, in that order. */
  initialIds(): number[] {
    return Array.from(this.initial ?? this.order.subarray(0, this.length));
  }

  /** Ids that were listed at the start and never deleted or hidden: present for the whole run, in initial order. */
  stableIds(): number[] {
    const deleted = new Set([...this.deletedIds(), ...this.hiddenSinceStart()]);
    return this.initialIds().filter((id) => !deleted.has(id));
  }

  /** Ids added since the start, in order of insertion. */
  insertedIds(): number[] {
    return this.log.filter((m) => m.kind === 'insert').map((m) => m.id);
  }

  /** Ids removed since the start, in order of deletion. */
  deletedIds(): number[] {
    return this.log.filter((m) => m.kind === 'delete').map((m) => m.id);
  }

  /** Ids no longer listed because their collection was made private since the start, in that order. */
  hiddenSinceStart(): number[] {
    return this.log.filter((m) => m.kind === 'hide').map((m) => m.id);
  }

  /** Every mutation since the start, oldest first. */
  mutations(): readonly Mutation[] {
    return this.log;
  }

  /** Inserts `count` generated records at random rows, with fresh ids (past any id made) in public collections. */
  insert(count: number, random: Random): number[] {
    const added: number[] = [];
    for (let k = 0; k < count; k++) {
      let id = ++this.maxId;
      while (this.use(id) !== 'list') id = ++this.maxId;
      added.push(this.place(id, random));
    }
    return added;
  }

  /** The largest id made so far, listed or not: an insert's fresh id is past it. */
  get largestId(): number {
    return this.maxId;
  }

  /**
   * Inserts the generated record `id` (never listed, hidden or given before) at a random row, uploaded now; its
   * collection (made if new) is touched. Returns the id.
   */
  insertId(id: number, random: Random): number {
    const inPrivate = this.collections.get(collectionOf(this.seed, id))?.private === true;
    if (this.has(id) || this.isPrivate(id) || this.isGiven(id) || inPrivate || this.use(id) !== 'list')
      throw new Error(`service: id ${id} cannot be inserted: it is listed, private, given, or in a private collection`);
    this.maxId = Math.max(this.maxId, id);
    return this.place(id, random);
  }

  /**
   * Deletes up to `count` records at random rows; their collections' `modify_date` moves, as NeuroVault's delete saves
   * the collection, unless `quietly` (as an admin's bulk delete in SQL would leave it).
   */
  delete(count: number, random: Random, quietly = false): number[] {
    this.snapshot();
    const removed: number[] = [];
    for (let k = 0; k < count && this.length > 0; k++) {
      const position = random.int(0, this.length - 1);
      const id = this.order[position] as number;
      this.order.copyWithin(position, position + 1, this.length);
      this.length--;
      this.sorted?.delete(id);
      const cid = this.collectionIdOf(id);
      if (cid !== undefined && !quietly) this.collections.touch(cid, this.collections.tick());
      this.log.push({ kind: 'delete', id, position });
      removed.push(id);
    }
    return removed;
  }

  /**
   * Edits up to `count` records at random rows in place, as their owners saving them: each one's `modify_date` moves
   * to the clock's next reading, its name gains a suffix drawn from `random`, and its collection's `modify_date` moves.
   */
  edit(count: number, random: Random): number[] {
    const edited: number[] = [];
    for (let k = 0; k < count && this.length > 0; k++) edited.push(this.editAt(random.int(0, this.length - 1), random));
    return edited;
  }

  /** Edits the listed record `id` as `edit` does. Returns the id. */
  editId(id: number, random: Random): number {
    const position = this.ids().indexOf(id);
    if (position === -1) throw new Error(`service: record ${id} is not listed, so it cannot be edited`);
    return this.editAt(position, random);
  }

  /** Deletes the listed record `id` as `delete` does (its collection's `modify_date` moves). Returns the id. */
  deleteId(id: number): number {
    if (!this.has(id)) throw new Error(`service: record ${id} is not listed, so it cannot be deleted`);
    this.unlist([id], 'delete');
    const cid = this.collectionIdOf(id);
    if (cid !== undefined) this.collections.touch(cid, this.collections.tick());
    return id;
  }

  /** The collections hideCollection made private that showCollection can make public again, ascending. */
  hiddenCollections(): number[] {
    return [...this.madePrivate.keys()].sort((a, b) => a - b);
  }

  /**
   * Makes a public generated collection private, as its owner can at any time: its images leave the list (and
   * `/api/images/<id>/`), its numeric id answers 403, its token opens it. Returns the ids hidden.
   */
  hideCollection(cid: number): number[] {
    const entry = this.collections.get(cid);
    if (entry === undefined || entry.private || entry.givenIds.length > 0) {
      throw new Error(`service: collection ${cid} is not a public generated collection`);
    }
    const ids = collectionImageIds(this, entry);
    const logged = this.log.length;
    this.unlist(ids, 'hide');
    this.madePrivate.set(cid, this.log.slice(logged));
    for (const id of ids) this.hidden.add(id);
    this.collections.makePrivate(cid, this.collections.tick());
    return ids;
  }

  /**
   * Makes a collection that hideCollection made private public again: its images rejoin the list where they were
   * (as far as the rows around them still stand), its numeric id answers 200, its `modify_date` moves. Returns the ids
   * listed again, ascending.
   */
  showCollection(cid: number): number[] {
    const entry = this.collections.get(cid);
    const hides = this.madePrivate.get(cid);
    if (entry === undefined || !entry.private || hides === undefined)
      throw new Error(`service: collection ${cid} was not made private by hideCollection`);
    this.grow(this.length + hides.length);
    hides.forEach(({ id, position }, shown) => {
      const at = Math.min(position + shown, this.length);
      this.order.copyWithin(at + 1, at, this.length);
      this.order[at] = id;
      this.length++;
      this.sorted?.add(id);
      this.hidden.delete(id);
      this.log.push({ kind: 'show', id, position: at });
    });
    this.madePrivate.delete(cid);
    this.collections.makePublic(cid, this.collections.tick());
    return hides.map((m) => m.id).sort((a, b) => a - b);
  }

  /**
   * Deletes a collection and its images, as its owner can: every endpoint then answers 404 for it. Returns the ids
   * deleted.
   */
  deleteCollection(cid: number): number[] {
    const entry = this.collections.get(cid);
    if (entry === undefined) throw new Error(`service: there is no collection ${cid}`);
    const ids = collectionImageIds(this, entry);
    this.unlist(ids, 'delete');
    this.collections.remove(cid);
    return ids;
  }

  /** Moves up to `count` random rows to the end of the order, as updated rows move in an unordered heap scan. */
  moveToEnd(count: number, random: Random): number[] {
    this.snapshot();
    const moved: number[] = [];
    for (let k = 0; k < count && this.length > 1; k++) {
      const position = random.int(0, this.length - 2);
      const id = this.order[position] as number;
      this.order.copyWithin(position, position + 1, this.length);
      this.order[this.length - 1] = id;
      this.log.push({ kind: 'move', id, position });
      moved.push(id);
    }
    return moved;
  }

  // Memo of the last collection's answer: the generator asks about ids in rising runs.
  private privateMemo = { cid: -1, isPrivate: false };

  /** What becomes of a generated id: given records and their collections pass it over; private collections hide it. */
  private use(id: number): IdUse {
    if (this.given.has(id)) return 'skip';
    const cid = collectionOf(this.seed, id);
    if (this.givenCollections.has(cid)) return 'skip';
    this.collections.reach(id, cid);
    if (cid !== this.privateMemo.cid) this.privateMemo = { cid, isPrivate: isPrivateCollection(this.seed, cid) };
    return this.privateMemo.isPrivate ? 'hide' : 'list';
  }

  /** Takes the ids out of the list, logging each as `kind`. */
  private unlist(ids: readonly number[], kind: 'delete' | 'hide'): void {
    this.snapshot();
    const leaving = new Set(ids);
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const id = this.order[i] as number;
      if (leaving.has(id)) {
        this.sorted?.delete(id);
        this.log.push({ kind, id, position: kept });
      } else this.order[kept++] = id;
    }
    this.length = kept;
  }

  /** Lists `id` at a random row, uploaded now by the clock, its collection touched; logged as an insert. */
  private place(id: number, random: Random): number {
    this.snapshot();
    const position = random.int(0, this.length);
    this.grow(this.length + 1);
    this.order.copyWithin(position + 1, position, this.length);
    this.order[position] = id;
    this.length++;
    this.sorted?.add(id);
    const now = this.collections.tick();
    this.uploaded.set(id, now);
    this.collections.touch(collectionOf(this.seed, id), now);
    this.log.push({ kind: 'insert', id, position });
    return id;
  }

  /** Edits the record at row `position`: modify_date to the clock, a suffix on its name, its collection touched. */
  private editAt(position: number, random: Random): number {
    this.snapshot();
    const id = this.order[position] as number;
    const now = this.collections.tick();
    const suffix = `${this.edits.get(id)?.suffix ?? ''} (edited ${random.int(1, 999_999)})`;
    this.edits.set(id, { modified: now, suffix });
    const cid = this.collectionIdOf(id);
    if (cid !== undefined) this.collections.touch(cid, now);
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
