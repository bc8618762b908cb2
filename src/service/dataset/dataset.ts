/**
 * The listed data set: an ordered list of ids plus a way to render any id's record (given records by lookup, all
 * others generated from (seed, id)), the generated images of private collections (they exist and are never listed),
 * and the collections. The knobs that change it while a client reads, or between runs, each keep to a file of their
 * own (record-inserts.ts, record-deletes.ts, in-place-edits.ts, privacy-toggles.ts); the list logs every change.
 */
import { generatedIdOrder, type IdUse, mixIdOrders } from '../records/build-id-order.js';
import { collectionImageIds } from '../collections/collection-image-ids.js';
import { collectionOf } from '../collections/collection-layout.js';
import { isPrivateCollection, privateToken } from '../collections/collection-privacy.js';
import { CollectionRegistry } from '../collections/collection-registry.js';
import {
  type DataRecord,
  type DataRecordInput,
  NEUROVAULT_ORIGIN,
  prepareDataRecords,
  renderDataRecord,
} from '../records/data-records.js';
import { generateRecordJson } from '../records/generate-record.js';
import { givenCollectionProfile } from '../collections/given-collections.js';
import type { DatasetParts } from '../changes/dataset-parts.js';
import { InPlaceEdits } from '../changes/in-place-edits.js';
import { ListedIds, type Mutation } from '../changes/listed-ids.js';
import { PrivacyToggles } from '../changes/privacy-toggles.js';
import { privateLinks } from '../records/private-links.js';
import { hash32, Random } from '../basics/random.js';
import { RecordDeletes } from '../changes/record-deletes.js';
import { RecordInserts } from '../changes/record-inserts.js';
import { SortedIds } from '../basics/sorted-ids.js';
import { type ListOrder, realOrder } from '../basics/real-order.js';
import { SERVICE_DEFAULTS } from '../service-options.js';

/** What a data set is built from. */
export interface DatasetSource {
  /** Given records, served in this order; default none. */
  data?: readonly DataRecordInput[];
  /** Number of generated records mixed in; default 0. */
  records?: number;
  /** Generator seed; default 1. */
  seed?: number;
  /** How the records and the collections are listed; default 'id'. */
  order?: ListOrder;
  /** The `file_size` every record with a file (one above 0) is listed with; default each record's own. */
  fileSize?: number;
}

/** The ordered records a service lists. */
export class Dataset {
  /** Origin URLs are built on when no origin is passed (the running service sets its own). */
  origin: string = NEUROVAULT_ORIGIN;
  readonly seed: number;
  private readonly fileSize: number | undefined;
  /** The collections, public and private. */
  readonly collections: CollectionRegistry;
  private readonly list: ListedIds;
  private readonly given: Map<number, DataRecord>;
  /** Collection ids of the given records: generated ids never fall in them. */
  private readonly givenCollections: ReadonlySet<number>;
  /** Generated ids in private collections. */
  private readonly hidden: SortedIds;
  private readonly inserts: RecordInserts;
  private readonly deletes: RecordDeletes;
  private readonly edits: InPlaceEdits;
  private readonly privacy: PrivacyToggles;

  constructor(source: DatasetSource = {}) {
    const records = source.records ?? 0;
    const seed = source.seed ?? SERVICE_DEFAULTS.seed;
    if (!Number.isSafeInteger(records) || records < 0)
      throw new Error(`service: records must be a non-negative integer, got ${records}`);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new Error(`service: seed must be a non-negative integer, got ${seed}`);
    const given = prepareDataRecords(source.data ?? []);
    this.seed = seed;
    this.fileSize = source.fileSize;
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
    this.collections.finish(new Random(hash32(seed, 0xc011ec)), source.order);
    const givenIds = given.map((record) => record.id);
    const mixed = given.length === 0 ? generated.listed : mixIdOrders(givenIds, generated.listed);
    const order = source.order === 'real' ? realOrder(mixed, new Random(hash32(seed, 0x0de5))) : mixed;
    this.list = new ListedIds(order);
    this.hidden = new SortedIds(generated.hidden);
    let largestId = this.hidden.size > 0 ? this.hidden.at(this.hidden.size - 1) : 0;
    for (const id of order) largestId = Math.max(largestId, id);
    const parts: DatasetParts = {
      seed,
      list: this.list,
      hidden: this.hidden,
      collections: this.collections,
      largestId,
      use: (id) => this.use(id),
      collectionIdOf: (id) => this.collectionIdOf(id),
      imagesOf: (entry) => collectionImageIds(this, entry),
    };
    this.inserts = new RecordInserts(parts);
    this.deletes = new RecordDeletes(parts);
    this.edits = new InPlaceEdits(parts);
    this.privacy = new PrivacyToggles(parts);
  }

  /** Number of records listed now (the `count` of a page). */
  get size(): number {
    return this.list.size;
  }

  /** The id at a row index of the current order. */
  idAt(index: number): number {
    return this.list.at(index);
  }

  /** All ids in current order. */
  ids(): number[] {
    return this.list.ids();
  }

  /** Whether the id is listed now: it was listed at the start or inserted since, and not deleted. */
  has(id: number): boolean {
    return this.list.has(id);
  }

  /** The listed ids in ascending order (kept up to date by the mutations). */
  sortedIds(): SortedIds {
    return this.list.sortedIds();
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
      : generateRecordJson(this.seed, id, origin, this.inserts.uploadedAt(id));
    const sized =
      this.fileSize === undefined ? json : json.replace(/"file_size"\s*:\s*[1-9]\d*/, `"file_size":${this.fileSize}`);
    const edited = this.edits.applyTo(id, sized);
    // An image of a private collection is linked by its collection's token, whenever it is served.
    const token = this.privateTokenOf(id);
    return token === undefined ? edited : privateLinks(edited, origin, id, collectionOf(this.seed, id), token);
  }

  /** When a record inserted by the mutation knobs was uploaded (UTC microseconds, virtual clock); else undefined. */
  uploadedAt(id: number): number | undefined {
    return this.inserts.uploadedAt(id);
  }

  /** The record at a row index, parsed, as served from `origin`. */
  recordAt(index: number, origin: string = this.origin): Record<string, unknown> {
    return JSON.parse(this.recordJson(this.idAt(index), origin)) as Record<string, unknown>;
  }

  /** Every record in current order, parsed, as served from `origin`. */
  *records(origin: string = this.origin): IterableIterator<Record<string, unknown>> {
    for (let i = 0; i < this.list.size; i++)
      yield JSON.parse(this.recordJson(this.list.at(i), origin)) as Record<string, unknown>;
  }

  /** The ids listed before the first mutation, in that order. */
  initialIds(): number[] {
    return this.list.initialIds();
  }

  /** Ids that were listed at the start and never deleted or hidden: present for the whole run, in initial order. */
  stableIds(): number[] {
    const deleted = new Set([...this.deletedIds(), ...this.hiddenSinceStart()]);
    return this.initialIds().filter((id) => !deleted.has(id));
  }

  /** Ids added since the start, in order of insertion. */
  insertedIds(): number[] {
    return this.list.loggedIds('insert');
  }

  /** Ids deleted since the start (listed ones, and a deleted private collection's images), in order of deletion. */
  deletedIds(): number[] {
    return this.list.loggedIds('delete');
  }

  /** Whether the id was deleted since the start: no insert lists it again, as no id is made twice. */
  wasDeleted(id: number): boolean {
    return this.list.wasDeleted(id);
  }

  /** Ids no longer listed because their collection was made private since the start, in that order. */
  hiddenSinceStart(): number[] {
    return this.list.loggedIds('hide');
  }

  /** Every mutation since the start, oldest first. */
  mutations(): readonly Mutation[] {
    return this.list.mutations();
  }

  /** The largest id made so far, listed or not: an insert's fresh id is past it. */
  get largestId(): number {
    return this.inserts.largestId;
  }

  /** Inserts `count` generated records at random rows, with fresh ids (past any id made) in public collections. */
  insert(count: number, random: Random): number[] {
    return this.inserts.insert(count, random);
  }

  /** Inserts the generated record `id` at a random row (record-inserts.ts). Returns the id. */
  insertId(id: number, random: Random): number {
    return this.inserts.insertId(id, random);
  }

  /** Deletes up to `count` records at random rows, their collections touched unless `quietly` (record-deletes.ts). */
  delete(count: number, random: Random, quietly = false): number[] {
    return this.deletes.delete(count, random, quietly);
  }

  /** Deletes the listed record `id` as `delete` does (its collection's `modify_date` moves). Returns the id. */
  deleteId(id: number): number {
    return this.deletes.deleteId(id);
  }

  /**
   * Deletes a collection and its images, public or private: every endpoint then answers 404 for it and them, no list
   * holds them, and their ids are never made again (record-deletes.ts). Returns the ids deleted.
   */
  deleteCollection(cid: number): number[] {
    const ids = this.deletes.deleteCollection(cid);
    this.privacy.forget(cid);
    return ids;
  }

  /** Edits up to `count` records at random rows in place, their collections touched (in-place-edits.ts). */
  edit(count: number, random: Random): number[] {
    return this.edits.edit(count, random);
  }

  /** Edits the listed record `id` as `edit` does. Returns the id. */
  editId(id: number, random: Random): number {
    return this.edits.editId(id, random);
  }

  /** The collections hideCollection made private that showCollection can make public again, ascending. */
  hiddenCollections(): number[] {
    return this.privacy.hiddenCollections();
  }

  /** Makes a public generated collection private: its images leave the list (privacy-toggles.ts). Returns them. */
  hideCollection(cid: number): number[] {
    return this.privacy.hideCollection(cid);
  }

  /** Makes a collection hideCollection made private public again (privacy-toggles.ts). Returns the ids listed again. */
  showCollection(cid: number): number[] {
    return this.privacy.showCollection(cid);
  }

  /** Moves up to `count` random rows to the end of the order, as updated rows move in an unordered heap scan. */
  moveToEnd(count: number, random: Random): number[] {
    const moved: number[] = [];
    for (let k = 0; k < count && this.list.size > 1; k++)
      moved.push(this.list.moveToEnd(random.int(0, this.list.size - 2)));
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
}
