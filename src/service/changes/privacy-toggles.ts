/**
 * Collections made private after the start and public again, as their owners can at any time. While private, a
 * collection's images leave the list (and `/api/images/<id>/`), its numeric id answers 403 and its token opens it;
 * made public again, its images rejoin the list where they were.
 */
import type { DatasetParts } from './dataset-parts.js';
import type { Mutation } from './listed-ids.js';

/** The collections of a data set made private by hand, and what making each one public again undoes. */
export class PrivacyToggles {
  /** Collections made private by hideCollection: the hide mutations of their images, in list order. */
  private readonly madePrivate = new Map<number, Mutation[]>();

  constructor(private readonly options: DatasetParts) {}

  /** The collections hideCollection made private that showCollection can make public again, ascending. */
  hiddenCollections(): number[] {
    return [...this.madePrivate.keys()].sort((a, b) => a - b);
  }

  /**
   * Makes a public generated collection private: its images leave the list (and `/api/images/<id>/`), its numeric id
   * answers 403, its token opens it. Returns the ids hidden.
   */
  hideCollection(cid: number): number[] {
    const { list, hidden, collections, imagesOf } = this.options;
    const entry = collections.get(cid);
    if (entry === undefined || entry.private || entry.givenIds.length > 0) {
      throw new Error(`service: collection ${cid} is not a public generated collection`);
    }
    const ids = imagesOf(entry);
    this.madePrivate.set(cid, list.remove(ids, 'hide'));
    for (const id of ids) hidden.add(id);
    collections.setPrivate(cid, true, collections.tick());
    return ids;
  }

  /** Forgets a collection made private here that was deleted since: showCollection can no longer make it public. */
  forget(cid: number): void {
    this.madePrivate.delete(cid);
  }

  /**
   * Makes a collection that hideCollection made private public again: its images rejoin the list where they were
   * (as far as the rows around them still stand), its numeric id answers 200, its `modify_date` moves. Returns the ids
   * listed again, ascending.
   */
  showCollection(cid: number): number[] {
    const { list, hidden, collections } = this.options;
    const entry = collections.get(cid);
    const hides = this.madePrivate.get(cid);
    if (entry === undefined || !entry.private || hides === undefined)
      throw new Error(`service: collection ${cid} was not made private by hideCollection`);
    hides.forEach(({ id, position }, shown) => {
      list.insertAt(Math.min(position + shown, list.size), id, 'show');
      hidden.delete(id);
    });
    this.madePrivate.delete(cid);
    collections.setPrivate(cid, false, collections.tick());
    return hides.map((m) => m.id).sort((a, b) => a - b);
  }
}
