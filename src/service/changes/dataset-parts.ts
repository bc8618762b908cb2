/** What the changes to a data set (inserts, deletes, edits, privacy toggles) read and change of it. */
import type { CollectionEntry, CollectionRegistry } from '../collections/collection-registry.js';
import type { IdUse } from '../records/build-id-order.js';
import type { ListedIds } from './listed-ids.js';
import type { SortedIds } from '../basics/sorted-ids.js';

/** A data set's parts as its changes see them. */
export interface DatasetParts {
  /** The generator's seed: a generated record's collection follows from its id. */
  seed: number;
  /** The listed ids: records join and leave it, or are edited in place. */
  list: ListedIds;
  /** The generated ids of private collections (they exist and are never listed). */
  hidden: SortedIds;
  /** The collections: the virtual clock, each one's private flag, and the collection a change touches. */
  collections: CollectionRegistry;
  /** The largest id made at the start, listed or not. */
  largestId: number;
  /** What the generator does with an id: given records and their collections pass it over. */
  use: (id: number) => IdUse;
  /** The collection an image belongs to. */
  collectionIdOf: (id: number) => number | undefined;
  /** The ids of a collection's images now. */
  imagesOf: (entry: CollectionEntry) => number[];
}
