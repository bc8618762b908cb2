/**
 * A collection's items as they are now (what `/api/collections/<id>/images/` lists, ascending as its query orders them,
 * is `collectionImageIds`): the latest change among them, which bumps the collection's `modify_date`.
 */
import type { CollectionEntry } from '../collections/collection-registry.js';
import { collectionTraits } from '../collections/collection-traits.js';
import { collectionImageIds } from '../collections/collection-image-ids.js';
import type { Dataset } from './dataset.js';
import { imageTimes } from '../basics/image-times.js';

/** The latest modify time of the collection's items (UTC microseconds), 0 for none; computed once while unchanged. */
export function itemsModified(dataset: Dataset, entry: CollectionEntry): number {
  if (entry.itemsModified !== undefined) return entry.itemsModified;
  const { bulkUpdate } = collectionTraits(dataset.seed, entry.cid);
  let latest = 0;
  for (const id of collectionImageIds(dataset, entry)) {
    const given = dataset.givenRecord(id);
    const generated = (): number => dataset.uploadedAt(id) ?? imageTimes(dataset.seed, id, bulkUpdate).modified;
    const modified = given ? given.modified : generated();
    latest = Math.max(latest, modified ?? 0);
  }
  entry.itemsModified = latest;
  return latest;
}
