/**
 * The links of a private collection's images, as NeuroVault writes and serves them: `Image.get_absolute_url` names a
 * private image `/collections/<token>/images/<id>/`, `Collection.get_absolute_url` names its collection by token, and
 * the media storage's `url()` puts the token in place of the collection id (models.py L789-796, L1151-1161;
 * storage.py). Its files are served by `serve_image`, which calls `get_collection(cid, mode="file")`: by token they
 * are served, by the collection's number they answer 403 (PermissionDenied, for everyone). Real loopback HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionImageIds } from '../../../src/service/collections/collection-image-ids.js';
import { type RunningService, startService } from '../../../src/service/index.js';
import { fetchReply, getPage } from '../http.js';

const MEDIA_KEYS = ['file', 'thumbnail', 'surface_left_file', 'surface_right_file', 'reduced_representation'];
let service: RunningService;

beforeAll(async () => {
  service = await startService({ records: 1000, seed: 9 });
});
afterAll(() => service.close());

/** A private collection of the generated data, its token and its images. */
function privateCollection(): { cid: number; token: string; ids: number[] } {
  const id = service.dataset.privateIds()[0]!;
  const cid = service.dataset.collectionIdOf(id)!;
  const ids = service.dataset.privateIds().filter((other) => service.dataset.collectionIdOf(other) === cid);
  return { cid, token: service.dataset.privateTokenOf(id)!, ids };
}

const status = async (url: string): Promise<number> => (await fetchReply(url, { method: 'HEAD' })).status;

describe("a private collection's images", () => {
  it('link themselves, their collection and their media by the token, in its list and one by one', async () => {
    const { cid, token, ids } = privateCollection();
    const page = await getPage(`${service.url}/api/collections/${token}/images/?limit=1000`);
    const detail = await fetchReply(`${service.listUrl}${token}-${ids[0]}/`);
    const one = JSON.parse(detail.text) as Record<string, unknown>;
    expect(page.results.map((r) => r['id'])).toEqual(ids);
    for (const record of [...page.results, one]) {
      const id = record['id'] as number;
      expect(record['url']).toBe(`${service.url}/collections/${token}/images/${id}/`);
      expect(record['collection']).toBe(`${service.url}/collections/${token}/`);
      expect(record['collection_id']).toBe(cid);
      for (const key of MEDIA_KEYS) {
        const link = record[key];
        if (link !== null)
          expect([key, link]).toEqual([key, expect.stringMatching(`^${service.url}/media/images/${token}/`)]);
      }
    }
  });

  it('have their files served by token, and refused with 403 by the collection number', async () => {
    const { cid, token, ids } = privateCollection();
    const record = JSON.parse((await fetchReply(`${service.listUrl}${token}-${ids[0]}/`)).text) as Record<
      string,
      unknown
    >;
    const byToken = String(record['file']);
    const byNumber = byToken.replace(`/media/images/${token}/`, `/media/images/${cid}/`);
    expect(await status(byToken)).toBe(record['file_size'] === 0 ? 404 : 200);
    const refused = await fetchReply(byNumber);
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refused.text).toContain('<h1>403 Forbidden</h1>');
  });
});

describe('a collection made private while a client holds its links', () => {
  it('refuses the numeric file links with 403 while private, and serves them again once public', async () => {
    const { dataset } = service;
    const cid = dataset.collections
      .publicIds()
      .find(
        (c) =>
          dataset.collections.get(c)!.givenIds.length === 0 &&
          collectionImageIds(dataset, dataset.collections.get(c)!).length >= 2,
      )!;
    const kept = collectionImageIds(dataset, dataset.collections.get(cid)!)
      .map((id) => JSON.parse(dataset.recordJson(id, service.url)) as Record<string, unknown>)
      .filter((record) => record['file_size'] !== 0)
      .map((record) => String(record['thumbnail'] ?? record['file']));
    expect(await Promise.all(kept.map(status))).toEqual(kept.map(() => 200));
    dataset.hideCollection(cid);
    expect(await Promise.all(kept.map(status))).toEqual(kept.map(() => 403));
    dataset.showCollection(cid);
    expect(await Promise.all(kept.map(status))).toEqual(kept.map(() => 200));
  });
});
