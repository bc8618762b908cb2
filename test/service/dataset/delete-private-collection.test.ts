/**
 * A private collection deleted (`Dataset.deleteCollection`), whether hideCollection made it private or it was private
 * from the start: as on NeuroVault, its images go with it. They answer 404 by any URL (token form, plain id, media
 * file), the collection answers 404 by id and by token, it is in no list (`hiddenCollections`, `privateIds`), the admin
 * `public` change never picks it, and no insert makes its ids again. Real loopback HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyChange } from '../../../src/service/dataset/admin-change.js';
import { collectionImageIds } from '../../../src/service/collections/collection-image-ids.js';
import { Dataset } from '../../../src/service/dataset/dataset.js';
import { type RunningService, startService } from '../../../src/service/index.js';
import { Random } from '../../../src/service/basics/random.js';
import { fetchReply } from '../http.js';

/** A data set with collections private from the start. */
const SOURCE = { records: 1000, seed: 9 };
const services: RunningService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function status(url: string): Promise<number> {
  return (await fetchReply(url, { method: 'HEAD' })).status;
}

/** Every URL an image of a private collection is served at: token form, plain id, and its media file. */
function imageUrls(service: RunningService, id: number, token: string): string[] {
  const file = (JSON.parse(service.dataset.recordJson(id, service.url)) as Record<string, unknown>)['file'];
  return [`${service.listUrl}${token}-${id}/`, `${service.listUrl}${id}/`, String(file)];
}

/**
 * Asks each of `imageUrls` once while the collection is private (so any cache of its files is filled before a delete):
 * the token form answers 200, the plain id 404, and the media files 200 (but for a file the server lost).
 */
async function expectServedWhilePrivate(urls: string[]): Promise<void> {
  const statuses = await Promise.all(urls.map(status));
  const images = urls.length / 3;
  expect(statuses.filter((_, i) => i % 3 === 0)).toEqual(Array(images).fill(200));
  expect(statuses.filter((_, i) => i % 3 === 1)).toEqual(Array(images).fill(404));
  expect(statuses.filter((_, i) => i % 3 === 2)).toContain(200);
}

/** A private collection of the data set and its images. */
interface PrivateCollection {
  cid: number;
  images: number[];
}

/** A public generated collection of the data set with 2 to 30 images, made private by hideCollection. */
function hideOne(dataset: Dataset): PrivateCollection {
  const { collections } = dataset;
  const fits = (cid: number): boolean => {
    const entry = collections.get(cid)!;
    const size = collectionImageIds(dataset, entry).length;
    return entry.givenIds.length === 0 && size >= 2 && size <= 30;
  };
  const cid = collections.publicIds().find(fits);
  if (cid === undefined) throw new Error('the data set has no public generated collection of 2 to 30 images');
  return { cid, images: dataset.hideCollection(cid) };
}

/** A collection private from the start that holds images. */
function bornPrivate(dataset: Dataset): PrivateCollection {
  const [first] = dataset.privateIds();
  if (first === undefined) throw new Error('the data set has no private collection');
  const cid = dataset.collectionIdOf(first)!;
  const images = dataset.privateIds().filter((id) => dataset.collectionIdOf(id) === cid);
  return { cid, images };
}

describe.each([
  ['made private by hideCollection', hideOne],
  ['private from the start', bornPrivate],
] as const)('deleting a collection %s', (_, privateOne) => {
  it('deletes its images: 404 by token, by id and by media file; 404 for the collection by id and token', async () => {
    const service = await startService(SOURCE);
    services.push(service);
    const { dataset } = service;
    const { cid, images } = privateOne(dataset);
    const token = dataset.privateTokenOf(images[0]!)!;
    const urls = images.flatMap((id) => imageUrls(service, id, token));
    await expectServedWhilePrivate(urls);
    expect(dataset.deleteCollection(cid)).toEqual(images);
    for (const url of urls) expect([url, await status(url)]).toEqual([url, 404]);
    for (const pk of [String(cid), token]) {
      for (const path of [`${pk}/`, `${pk}/images/`])
        expect([path, await status(`${service.url}/api/collections/${path}`)]).toEqual([path, 404]);
    }
  });

  it('is in no list: not hidden, its images not private, and showCollection refuses it', () => {
    const dataset = new Dataset(SOURCE);
    const { cid, images } = privateOne(dataset);
    dataset.deleteCollection(cid);
    expect(dataset.hiddenCollections()).toEqual([]);
    expect(dataset.privateIds().filter((id) => images.includes(id))).toEqual([]);
    for (const id of images)
      expect([id, dataset.isPrivate(id), dataset.privateTokenOf(id)]).toEqual([id, false, undefined]);
    expect(() => dataset.showCollection(cid)).toThrow(
      `service: collection ${cid} was not made private by hideCollection`,
    );
  });

  it('never makes its ids again: wasDeleted knows them, and insertId and the inserts refuse them', () => {
    const dataset = new Dataset(SOURCE);
    const { cid, images } = privateOne(dataset);
    dataset.deleteCollection(cid);
    expect(dataset.collections.wasDeleted(cid)).toBe(true);
    for (const id of images) {
      expect([id, dataset.wasDeleted(id)]).toEqual([id, true]);
      expect(() => dataset.insertId(id, new Random(1))).toThrow(`service: id ${id} cannot be inserted`);
    }
    expect(dataset.deletedIds()).toEqual(expect.arrayContaining(images));
    const inserted = [
      ...dataset.insert(30, new Random(2)),
      ...applyChange(dataset, { kind: 'insert', collections: 3, seed: 3 }).records,
      ...applyChange(dataset, { kind: 'new-collection', collections: 3, seed: 4 }).records,
    ];
    expect(inserted.filter((id) => images.includes(id) || dataset.collectionIdOf(id) === cid)).toEqual([]);
  });
});

describe('the admin public change after a collection hideCollection made private is deleted', () => {
  it('never picks it: it picks among the collections still hidden', () => {
    const dataset = new Dataset(SOURCE);
    dataset.deleteCollection(hideOne(dataset).cid);
    expect(() => applyChange(dataset, { kind: 'public', collections: 1, seed: 1 })).toThrow(
      'service: only 0 collections can take a public change, asked for 1',
    );
    const kept = applyChange(dataset, { kind: 'private', collections: 2, seed: 2 }).collections;
    expect(() => applyChange(dataset, { kind: 'public', collections: 3, seed: 3 })).toThrow(
      'service: only 2 collections can take a public change, asked for 3',
    );
    const shown = applyChange(dataset, { kind: 'public', collections: 2, seed: 3 }).collections;
    expect(shown.sort((a, b) => a - b)).toEqual(kept.sort((a, b) => a - b));
  });
});
