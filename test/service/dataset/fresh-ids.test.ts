/**
 * Ids are never made twice, as Django's auto-increment primary keys never are: after a collection or an image is
 * deleted, no insert (`Dataset.insert`, `Dataset.insertId`) and no admin change (`kind=new-collection`, `kind=insert`)
 * brings its id back, and the deleted collection answers 404 for good. Real loopback HTTP for the admin endpoint.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyChange } from '../../../src/service/dataset/admin-change.js';
import { collectionRange } from '../../../src/service/collections/collection-layout.js';
import { Dataset } from '../../../src/service/dataset/dataset.js';
import { type RunningService, startService } from '../../../src/service/index.js';
import { Random } from '../../../src/service/basics/random.js';
import { fetchReply } from '../http.js';

const services: RunningService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

/** A data set whose newest collection (the one holding the largest id) is deleted, with room left in its range. */
function withNewestDeleted(): { dataset: Dataset; gone: number } {
  const dataset = new Dataset({ records: 300, seed: 4 });
  const gone = dataset.collectionIdOf(dataset.largestId)!;
  expect(collectionRange(4, gone)!.hi).toBeGreaterThan(dataset.largestId + 10);
  dataset.deleteCollection(gone);
  return { dataset, gone };
}

describe('a deleted collection', () => {
  it('is not made again by Dataset.insert, though the next ids fall in its range', () => {
    const { dataset, gone } = withNewestDeleted();
    const inserted = dataset.insert(5, new Random(1));
    expect(dataset.collections.get(gone)).toBeUndefined();
    for (const id of inserted) {
      const cid = dataset.collectionIdOf(id)!;
      expect(cid).toBeGreaterThan(gone);
      expect(dataset.collections.get(cid)).toMatchObject({ private: false, nameSuffix: '' });
    }
  });

  it('is not made again by kind=new-collection, whose new collection gets a larger id', () => {
    const { dataset, gone } = withNewestDeleted();
    const made = applyChange(dataset, { kind: 'new-collection', collections: 2, seed: 1 });
    expect(dataset.collections.get(gone)).toBeUndefined();
    for (const cid of made.collections) {
      expect(cid).toBeGreaterThan(gone);
      expect(dataset.collections.get(cid)?.nameSuffix).toBe('');
    }
    for (const id of made.records) expect(made.collections).toContain(dataset.collectionIdOf(id));
  });

  it('still answers 404 over HTTP after POST /admin/change?kind=new-collection', async () => {
    const service = await startService({ records: 300, seed: 4, admin: true });
    services.push(service);
    const gone = service.dataset.collectionIdOf(service.dataset.largestId)!;
    service.dataset.deleteCollection(gone);
    const url = `${service.url}/api/collections/${gone}/`;
    expect((await fetchReply(url)).status).toBe(404);
    const reply = await fetchReply(`${service.url}/admin/change?kind=new-collection&collections=1`, { method: 'POST' });
    expect(reply.status, reply.text).toBe(200);
    expect((await fetchReply(url)).status).toBe(404);
  });
});

describe('a deleted image', () => {
  it('is never listed again: Dataset.insertId refuses its id', () => {
    const dataset = new Dataset({ records: 300, seed: 4 });
    const gone = dataset.deleteId(dataset.idAt(5));
    expect(() => dataset.insertId(gone, new Random(2))).toThrow(`service: id ${gone} cannot be inserted`);
    expect(dataset.has(gone)).toBe(false);
  });

  it('keeps its id from Dataset.insert and the admin inserts, which make ids no record ever had', () => {
    const { dataset } = withNewestDeleted();
    const deleted = new Set([...dataset.deletedIds(), ...dataset.delete(40, new Random(3))]);
    const inserted = [
      ...dataset.insert(20, new Random(4)),
      ...applyChange(dataset, { kind: 'insert', collections: 5, seed: 5 }).records,
      ...applyChange(dataset, { kind: 'new-collection', collections: 3, seed: 6 }).records,
    ];
    expect(inserted.filter((id) => deleted.has(id))).toEqual([]);
    expect(new Set(inserted).size).toBe(inserted.length);
  });
});
