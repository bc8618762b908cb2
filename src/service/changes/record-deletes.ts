/**
 * Records deleted after the start, as NeuroVault's users delete them: one at a time (its collection's `modify_date`
 * moves, as the delete saves the collection) or a whole collection at once.
 */
import type { DatasetParts } from './dataset-parts.js';
import type { Random } from '../basics/random.js';

/** The deletes from a data set's list. */
export class RecordDeletes {
  constructor(private readonly options: DatasetParts) {}

  /**
   * Deletes up to `count` records at random rows; their collections' `modify_date` moves, as NeuroVault's delete saves
   * the collection, unless `quietly` (as an admin's bulk delete in SQL would leave it).
   */
  delete(count: number, random: Random, quietly = false): number[] {
    const { list } = this.options;
    const removed: number[] = [];
    for (let k = 0; k < count && list.size > 0; k++) {
      const id = list.removeAt(random.int(0, list.size - 1));
      if (!quietly) this.touchCollectionOf(id);
      removed.push(id);
    }
    return removed;
  }

  /** Deletes the listed record `id` as `delete` does (its collection's `modify_date` moves). Returns the id. */
  deleteId(id: number): number {
    const { list } = this.options;
    if (!list.has(id)) throw new Error(`service: record ${id} is not listed, so it cannot be deleted`);
    list.remove([id], 'delete');
    this.touchCollectionOf(id);
    return id;
  }

  /**
   * Deletes a collection and its images, as its owner can, public or private: every endpoint then answers 404 for it
   * and for them (by id, by token, by file), and no insert makes their ids again. Returns the ids deleted.
   */
  deleteCollection(cid: number): number[] {
    const { list, hidden, collections, imagesOf } = this.options;
    const entry = collections.get(cid);
    if (entry === undefined) throw new Error(`service: there is no collection ${cid}`);
    const ids = imagesOf(entry);
    if (entry.private) {
      list.deleteUnlisted(ids);
      for (const id of ids) hidden.delete(id);
    } else list.remove(ids, 'delete');
    collections.remove(cid);
    return ids;
  }

  private touchCollectionOf(id: number): void {
    const { collections, collectionIdOf } = this.options;
    const cid = collectionIdOf(id);
    if (cid !== undefined) collections.touch(cid, collections.tick());
  }
}
