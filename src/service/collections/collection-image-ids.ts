/** Which images a collection holds now, read from the ids a data set lists and the ones it keeps private. */
import type { CollectionEntry } from './collection-registry.js';
import type { SortedIds } from '../basics/sorted-ids.js';

/** What a collection's images are read from (a Dataset is one). */
export interface ImageIdSets {
  /** Whether the id is listed now. */
  has(id: number): boolean;
  /** The listed ids, ascending. */
  sortedIds(): SortedIds;
  /** The ids of the images in private collections, ascending. */
  hiddenIds(): SortedIds;
  /** Whether the id is one of the given (not generated) records. */
  isGiven(id: number): boolean;
}

/** The ids of the collection's images now, ascending: listed ones, or for a private collection its hidden ones. */
export function collectionImageIds(images: ImageIdSets, entry: CollectionEntry): number[] {
  if (entry.givenIds.length > 0) return entry.givenIds.filter((id) => images.has(id));
  const ids = entry.private ? images.hiddenIds() : images.sortedIds();
  const out: number[] = [];
  for (let i = ids.lowerBound(entry.lo); i < ids.size && ids.at(i) < entry.hi; i++) {
    const id = ids.at(i);
    // A given record in the range belongs to its own collection.
    if (!images.isGiven(id)) out.push(id);
  }
  return out;
}
