/**
 * Records inserted after the start, as NeuroVault's users upload them: a generated record at a random row, dated by
 * the collections' virtual clock, its collection touched.
 */
import { collectionOf } from '../collections/collection-layout.js';
import type { DatasetParts } from './dataset-parts.js';
import type { Random } from '../basics/random.js';

/** The inserts into a data set's list, and when each inserted record was uploaded. */
export class RecordInserts {
  private maxId: number;
  /** Inserted records: when they were uploaded, by the collections' virtual clock. */
  private readonly uploaded = new Map<number, number>();

  constructor(private readonly options: DatasetParts) {
    this.maxId = options.largestId;
  }

  /** The largest id made so far, listed or not: an insert's fresh id is past it. */
  get largestId(): number {
    return this.maxId;
  }

  /** When a record inserted here was uploaded (UTC microseconds, virtual clock); else undefined. */
  uploadedAt(id: number): number | undefined {
    return this.uploaded.get(id);
  }

  /** Inserts `count` generated records at random rows, with fresh ids (past any id made) in public collections. */
  insert(count: number, random: Random): number[] {
    const added: number[] = [];
    for (let k = 0; k < count; k++) {
      let id = ++this.maxId;
      // `use` knows the collections private from the start; one made private or deleted since, only the registry.
      while (this.options.use(id) !== 'list' || this.inClosedCollection(id)) id = ++this.maxId;
      added.push(this.place(id, random));
    }
    return added;
  }

  /**
   * Inserts the generated record `id` (never listed, hidden or given before: ids are never reused) at a random row,
   * uploaded now; its collection (made if new) is touched. Returns the id.
   */
  insertId(id: number, random: Random): number {
    const { list, hidden, use } = this.options;
    if (list.has(id) || list.wasDeleted(id) || hidden.has(id) || this.inClosedCollection(id) || use(id) !== 'list') {
      throw new Error(
        `service: id ${id} cannot be inserted: it is listed, deleted, private, given, or in a private or deleted ` +
          'collection',
      );
    }
    this.maxId = Math.max(this.maxId, id);
    return this.place(id, random);
  }

  /** Whether the id falls in a collection that is private now (from the start, or made private since) or deleted. */
  private inClosedCollection(id: number): boolean {
    const { seed, collections } = this.options;
    const cid = collectionOf(seed, id);
    return collections.get(cid)?.private === true || collections.wasDeleted(cid);
  }

  /** Lists `id` at a random row, uploaded now by the clock, its collection touched; logged as an insert. */
  private place(id: number, random: Random): number {
    const { seed, list, collections } = this.options;
    list.insertAt(random.int(0, list.size), id, 'insert');
    const now = collections.tick();
    this.uploaded.set(id, now);
    collections.touch(collectionOf(seed, id), now);
    return id;
  }
}
