/**
 * Changes between runs, as NeuroVault's users make them: K collections chosen uniformly at random (seeded) each get one
 * kind of change. What `POST /admin/change` and `RunningService.change` do.
 */
import { collectionOf, collectionRange } from '../collections/collection-layout.js';
import { isPrivateCollection } from '../collections/collection-privacy.js';
import { collectionImageIds } from '../collections/collection-image-ids.js';
import type { Dataset } from './dataset.js';
import { hash32, Random } from '../basics/random.js';

/** The kinds of change, in the order the admin endpoint names them. */
export const CHANGE_KINDS = [
  'edit',
  'delete',
  'insert',
  'private',
  'public',
  'new-collection',
  'delete-collection',
] as const;

/** One kind of change: a record edited, deleted or inserted in each collection, or the collection itself changed. */
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** What to change. */
export interface ChangeRequest {
  kind: ChangeKind;
  /** How many collections get the change. Default 1. */
  collections?: number;
  /** Seed of the choice of collections and records. Default 1. */
  seed?: number;
}

/** What was changed: the collections, and the records edited, deleted, inserted, hidden or listed again. */
export type ChangeResult = ReturnType<typeof applyChange>;

/** Applies one change to K collections chosen at random; throws in one line when fewer than K can take it. */
export function applyChange(dataset: Dataset, request: ChangeRequest) {
  const { kind, collections: count = 1, seed = 1 } = request;
  if (!(CHANGE_KINDS as readonly string[]).includes(kind))
    throw new Error(`service: kind must be one of ${CHANGE_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  for (const [name, value] of [['collections', count] as const, ['seed', seed] as const]) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`service: ${name} must be a non-negative integer, got ${value}`);
  }
  const random = new Random(hash32(seed, 0xad31));
  if (kind === 'new-collection') return newCollections(dataset, count, random);
  const pool = candidates(dataset, kind);
  if (pool.length < count)
    throw new Error(`service: only ${pool.length} collections can take a ${kind} change, asked for ${count}`);
  const chosen = sample(pool, count, random);
  const records = chosen.flatMap((cid) => changeOne(dataset, kind, cid, random));
  return { kind, collections: chosen, records };
}

/** The collections that can take a change of `kind`, ascending. */
function candidates(dataset: Dataset, kind: Exclude<ChangeKind, 'new-collection'>): number[] {
  if (kind === 'public') return dataset.hiddenCollections();
  const { collections } = dataset;
  const ids = collections.publicIds().sort((a, b) => a - b);
  const entry = (cid: number) => collections.get(cid)!;
  const generated = (cid: number) => entry(cid).givenIds.length === 0;
  if (kind === 'edit' || kind === 'delete')
    return ids.filter((cid) => collectionImageIds(dataset, entry(cid)).length > 0);
  if (kind === 'insert') return ids.filter((cid) => generated(cid) && freeId(dataset, cid) !== undefined);
  if (kind === 'private') return ids.filter(generated);
  return ids;
}

/** Changes one collection; returns the records changed. */
function changeOne(dataset: Dataset, kind: ChangeKind, cid: number, random: Random): number[] {
  const images = () => collectionImageIds(dataset, dataset.collections.get(cid)!);
  switch (kind) {
    case 'edit':
      return [dataset.editId(random.pick(images()), random)];
    case 'delete':
      return [dataset.deleteId(random.pick(images()))];
    case 'insert':
      return [dataset.insertId(freeId(dataset, cid)!, random)];
    case 'private':
      return dataset.hideCollection(cid);
    case 'public':
      return dataset.showCollection(cid);
    default:
      return dataset.deleteCollection(cid);
  }
}

/**
 * The largest id of a generated collection's range that no record ever had (not listed, hidden, given or deleted):
 * where a new image of it goes, since a generated record's collection follows from its id.
 */
function freeId(dataset: Dataset, cid: number): number | undefined {
  const range = collectionRange(dataset.seed, cid);
  if (range === undefined) return undefined;
  for (let id = range.hi - 1; id >= range.lo; id--) {
    if (!dataset.has(id) && !dataset.isPrivate(id) && !dataset.isGiven(id) && !dataset.wasDeleted(id)) return id;
  }
  return undefined;
}

/** Makes `count` new public collections past every id made, each holding one to three new records. */
function newCollections(dataset: Dataset, count: number, random: Random) {
  const result = { kind: 'new-collection' as ChangeKind, collections: [] as number[], records: [] as number[] };
  for (let k = 0; k < count; k++) {
    let id = dataset.largestId + 1;
    let cid = collectionOf(dataset.seed, id);
    while (taken(dataset, cid, id)) {
      id = collectionRange(dataset.seed, cid)!.hi;
      cid = collectionOf(dataset.seed, id);
    }
    const size = random.int(1, 3);
    for (let n = 0; n < size; n++) result.records.push(dataset.insertId(id + n, random));
    result.collections.push(cid);
  }
  return result;
}

/**
 * Whether a new collection cannot start at `id` of collection `cid`: it exists or was deleted (ids are never reused),
 * is private, or holds given ids.
 */
function taken(dataset: Dataset, cid: number, id: number): boolean {
  const { collections, seed } = dataset;
  if (collections.get(cid) !== undefined || collections.wasDeleted(cid) || isPrivateCollection(seed, cid)) return true;
  return [id, id + 1, id + 2].some((n) => dataset.isGiven(n));
}

/** `count` distinct items of `items`, uniformly (a partial Fisher–Yates shuffle of a copy). */
function sample(items: readonly number[], count: number, random: Random): number[] {
  const copy = [...items];
  for (let i = 0; i < count; i++) {
    const j = random.int(i, copy.length - 1);
    [copy[i], copy[j]] = [copy[j] as number, copy[i] as number];
  }
  return copy.slice(0, count);
}
