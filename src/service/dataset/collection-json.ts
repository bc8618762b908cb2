/** A collection's record as NeuroVault's CollectionSerializer writes it: 107 keys in model order, compact JSON. */
import { collectionImageIds } from '../collections/collection-image-ids.js';
import { itemsModified } from './collection-members.js';
import { privateToken } from '../collections/collection-privacy.js';
import {
  type CollectionProfile,
  generateCollectionProfile,
  profileMembers,
} from '../collections/collection-profile.js';
import type { CollectionEntry } from '../collections/collection-registry.js';
import type { Dataset } from './dataset.js';
import { givenCollectionProfile } from '../collections/given-collections.js';
import { idTimeMicros } from '../basics/image-times.js';
import { jsonString } from '../../text/python-json.js';

/** The record's JSON text with its URLs on `origin`; a private collection is named by its token. */
export function collectionJson(dataset: Dataset, entry: CollectionEntry, origin: string): string {
  const profile = collectionProfile(dataset, entry);
  const url = `${origin}/collections/${entry.private ? privateToken(dataset.seed, entry.cid) : entry.cid}/`;
  const count = collectionImageIds(dataset, entry).length + profile.nidmPackages;
  // Saving or deleting an item saves its collection (modify_date is auto_now).
  const modified = Math.max(profile.modified, itemsModified(dataset, entry), entry.touched ?? 0);
  return (
    `{"id":${entry.cid},"url":"${url}","download_url":"${url}download","owner":${profile.owner},` +
    `"contributors":${jsonString(profile.contributors)},"owner_name":${jsonString(profile.ownerName)},` +
    `"number_of_images":${count},${profileMembers(profile, entry.private, modified)}${profile.metadata}` +
    `"communities":[${profile.communities.join(',')}]}`
  );
}

/** The collection's own fields: generated from (seed, cid), or those of a collection of given records. */
export function collectionProfile(dataset: Dataset, entry: CollectionEntry): CollectionProfile {
  let profile: CollectionProfile;
  if (entry.givenIds.length > 0) {
    const firstAdded = Math.min(...entry.givenIds.map((id) => dataset.givenRecord(id)?.added ?? Infinity));
    const fallback = idTimeMicros(entry.givenIds[0] as number);
    profile = givenCollectionProfile(dataset.seed, entry.cid, Number.isFinite(firstAdded) ? firstAdded : fallback);
  } else {
    profile = generateCollectionProfile(dataset.seed, entry.cid, entry.lo, entry.private);
  }
  const name = `${profile.name}${entry.nameSuffix}`;
  if (entry.createdAt === undefined) return { ...profile, name };
  // Made while the service runs: dated now.
  const doiAdded = profile.doiAdded === null ? null : entry.createdAt;
  return { ...profile, name, added: entry.createdAt, modified: entry.createdAt, doiAdded };
}
