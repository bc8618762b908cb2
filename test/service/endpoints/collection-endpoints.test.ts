/**
 * /api/collections/, /api/collections/<pk>/ and /api/collections/<pk>/images/ over real HTTP: get_collection's
 * statuses, paging, the unordered scan and the ordered image list, faults, and inserts and deletes seen alike
 * by /api/images/ and by the collections.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_FAULTS, type RunningService, startService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { allPages, fetchReply, getPage, type Page, rawGet } from '../http.js';

const NOT_FOUND = '{"detail":"Not found."}';
const FORBIDDEN = '{"detail":"You do not have permission to perform this action."}';

type Row = Record<string, unknown>;
let service: RunningService;

beforeAll(async () => {
  service = await startFixtureService({ records: 20_000, seed: 3 });
});
afterAll(() => service.close());
beforeEach(() => {
  service.setFaults({ ...NO_FAULTS, plan: undefined });
  service.resetStats();
});

const collectionsUrl = (target: RunningService): string => `${target.url}/api/collections/`;

/** A private collection of the service: its id and token. */
function privateCollection(target: RunningService): { cid: number; token: string } {
  const entry = target.dataset.collections.all().find((e) => e.private && e.hi > e.lo);
  if (entry === undefined) throw new Error('the data set has no private collection');
  const image = target.dataset.privateIds().find((id) => id >= entry.lo && id < entry.hi);
  return { cid: entry.cid, token: target.dataset.privateTokenOf(image!)! };
}

/** Every public collection, all pages of /api/collections/. */
async function everyCollection(target: RunningService): Promise<Row[]> {
  return (await allPages(`${collectionsUrl(target)}?limit=1000`)).flatMap((page) => page.results);
}

describe('/api/collections/<pk>/', () => {
  it("answers the record with the bytes it has in the list, and the view's headers", async () => {
    const page = await fetchReply(`${collectionsUrl(service)}?limit=5&offset=10`);
    const listed = (JSON.parse(page.text) as Page).results;
    const bodies: string[] = [];
    for (const record of listed) {
      const reply = await fetchReply(`${collectionsUrl(service)}${String(record.id)}/`);
      expect(reply.status).toBe(200);
      expect(reply.headers['allow']).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      bodies.push(reply.text);
    }
    expect(page.text).toContain(`"results":[${bodies.join(',')}]}`);
  });

  it.each([
    ['an unknown id', () => '999999', 404, NOT_FOUND],
    ['a negative id', () => '-3', 404, NOT_FOUND],
    ['an unknown token', () => 'QQQQQQQQ', 404, NOT_FOUND],
    ['a private collection by number', (s: RunningService) => String(privateCollection(s).cid), 403, FORBIDDEN],
  ] as const)('answers %s with %i', async (_, pk, status, body) => {
    const reply = await fetchReply(`${collectionsUrl(service)}${pk(service)}/`);
    expect([reply.status, reply.text]).toEqual([status, body]);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers a private collection by its token, with private true and the token in its URLs', async () => {
    const { cid, token } = privateCollection(service);
    const record = (await getPage(`${collectionsUrl(service)}${token}/`)) as unknown as Row;
    expect(record).toMatchObject({
      id: cid,
      private: true,
      url: `${service.url}/collections/${token}/`,
      download_url: `${service.url}/collections/${token}/download`,
      doi_add_date: null,
    });
    const everyId = (await everyCollection(service)).map((c) => c.id);
    expect(everyId).not.toContain(cid);
  });

  it.each([
    ['a pk that is neither a number nor a token', '/api/collections/abc/'],
    ['a format suffix (retrieve takes no format)', '/api/collections/555.json'],
    ['a format suffix on /images/', '/api/collections/555/images.json'],
    ['a bad pk on /images/', '/api/collections/abc/images/'],
  ])("crashes the view on %s: Django's HTML 500 page", async (_, path) => {
    const reply = await fetchReply(`${service.url}${path}`);
    expect(reply.status).toBe(500);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.text).toContain('<h1>Server Error (500)</h1>');
  });

  it('redirects to the slash, answers an unknown format 404, HEAD like GET, OPTIONS with its name', async () => {
    const moved = await fetchReply(`${service.url}/api/collections/555?format=json`);
    expect([moved.status, moved.headers['location']]).toEqual([301, '/api/collections/555/?format=json']);
    const unknown = await fetchReply(`${collectionsUrl(service)}555/?format=xml`);
    expect([unknown.status, unknown.text]).toEqual([404, NOT_FOUND]);
    const get = await fetchReply(`${collectionsUrl(service)}555/`);
    const head = await fetchReply(`${collectionsUrl(service)}555/`, { method: 'HEAD' });
    expect([head.status, head.body.length]).toEqual([200, 0]);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    const options = await fetchReply(`${collectionsUrl(service)}555/`, { method: 'OPTIONS' });
    expect((JSON.parse(options.text) as { name: string }).name).toBe('Collection Instance');
    const html = await fetchReply(`${collectionsUrl(service)}555/?format=api`);
    expect(html.text).toContain('<title>Collection Instance – Django REST framework</title>');
  });

  it('answers an anonymous write 401 on a public collection it finds, 404 otherwise', async () => {
    const found = await fetchReply(`${collectionsUrl(service)}555/`, { method: 'PATCH' });
    expect([found.status, found.headers['www-authenticate']]).toEqual([401, 'Token']);
    for (const pk of [String(privateCollection(service).cid), '999999', 'abc']) {
      expect((await fetchReply(`${collectionsUrl(service)}${pk}/`, { method: 'DELETE' })).status).toBe(404);
    }
  });
});

describe('/api/collections/<pk>/images/', () => {
  it("gives get_collection's statuses: 403 for a private one by number, its images by token, else 404", async () => {
    const { cid, token } = privateCollection(service);
    const forbidden = await fetchReply(`${collectionsUrl(service)}${cid}/images/`);
    expect([forbidden.status, forbidden.text]).toEqual([403, FORBIDDEN]);
    const byToken = await getPage(`${collectionsUrl(service)}${token}/images/?limit=1000`);
    const hidden = service.dataset.privateIds().filter((id) => service.dataset.collectionIdOf(id) === cid);
    expect(byToken.results.map((r) => r.id)).toEqual(hidden);
    expect(byToken.count).toBe(hidden.length);
    for (const id of hidden) expect((await fetchReply(`${service.listUrl}${id}/`)).status).toBe(404);
    const missing = await fetchReply(`${collectionsUrl(service)}999999/images/`);
    expect([missing.status, missing.text]).toEqual([404, NOT_FOUND]);
  });

  it('lists by ascending id in pages of 100 by default, capped at 1000, with DRF links', async () => {
    const all = await everyCollection(service);
    const large = all.find((c) => (c.number_of_images as number) > 250)!;
    const base = `${collectionsUrl(service)}${String(large.id)}/images/`;
    const first = await getPage(base);
    expect(first.results).toHaveLength(100);
    expect(first.next).toBe(`${base}?limit=100&offset=100`);
    expect(first.previous).toBeNull();
    const second = await getPage(`${base}?offset=100&format=json`);
    expect(second.previous).toBe(`${base}?format=json&limit=100`);
    const capped = await getPage(`${base}?limit=5000`);
    expect(capped.results.length).toBe(Math.min(1000, capped.count));
    const ids = (await allPages(`${base}?limit=37`)).flatMap((p) => p.results.map((r) => r.id as number));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toHaveLength(first.count);
    expect((await getPage(`${base}?offset=${first.count + 5}`)).results).toEqual([]);
  });

  it('stays ordered by id whatever the unstable-order knobs do', async () => {
    service.setFaults({ unstableOrderRate: 1 });
    const pages = await allPages(`${collectionsUrl(service)}555/images/?limit=4`);
    const ids = pages.flatMap((p) => p.results.map((r) => r.id as number));
    expect(ids).toEqual([9035, 9036, 9038, 9039, 9041, 9042, 9044, 9045, 9047, 9048, 9050, 9051, 9053]);
    expect(service.stats.rotatedScans).toBe(0);
  });

  it('counts orphans and drops them from the page, as the image list does', async () => {
    const target = await startService({ records: 3000, seed: 4, faults: { orphanRate: 0.3 } });
    try {
      const record = (await everyCollection(target)).find((c) => (c.number_of_images as number) > 50)!;
      const page = await getPage(`${collectionsUrl(target)}${String(record.id)}/images/?limit=1000`);
      const inIt = (id: number): boolean => target.dataset.collectionIdOf(id) === record.id;
      const orphans = target.dataset.ids().filter((id) => inIt(id) && target.isOrphan(id));
      expect(orphans.length).toBeGreaterThan(0);
      expect(page.results.length).toBe(page.count - orphans.length);
      for (const r of page.results) expect(orphans).not.toContain(r.id);
    } finally {
      await target.close();
    }
  });

  it('answers an anonymous POST 401 where get_collection finds the collection', async () => {
    const reply = await fetchReply(`${collectionsUrl(service)}555/images/`, { method: 'POST' });
    expect([reply.status, reply.text]).toEqual([401, '{"detail":"Authentication credentials were not provided."}']);
    expect(reply.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    const hidden = `${collectionsUrl(service)}${privateCollection(service).cid}/images/`;
    expect((await fetchReply(hidden, { method: 'POST' })).status).toBe(403);
  });

  it("answers an anonymous POST with Django's 500 page where get_collection's pk is no integer", async () => {
    const reply = await fetchReply(`${collectionsUrl(service)}abc/images/`, { method: 'POST' });
    expect(reply.status).toBe(500);
    expect(reply.text).toContain('<h1>Server Error (500)</h1>');
    expect(service.stats.byStatus[500]).toBe(1);
  });
});

describe('/api/collections/', () => {
  it('pages every public collection once, in the unordered scan of the table (mostly by id, not all)', async () => {
    const pages = await allPages(`${collectionsUrl(service)}?limit=97`);
    const ids = pages.flatMap((p) => p.results.map((r) => r.id as number));
    const expected = service.dataset.collections
      .all()
      .filter((e) => !e.private)
      .map((e) => e.cid);
    expect([...ids].sort((a, b) => a - b)).toEqual(expected);
    expect(ids).not.toEqual(expected);
    expect(ids.filter((id, i) => i > 0 && id < ids[i - 1]!).length).toBeLessThan(ids.length / 10);
  });

  it('pages as LimitOffsetPagination does: default 100, cap 1000, sorted link keys, format kept', async () => {
    const first = await getPage(collectionsUrl(service));
    expect(first.results).toHaveLength(100);
    expect(first.count).toBe(service.dataset.collections.publicCount);
    expect(first.next).toBe(`${collectionsUrl(service)}?limit=100&offset=100`);
    expect((await getPage(`${collectionsUrl(service)}?limit=2000`)).results).toHaveLength(Math.min(1000, first.count));
    const middle = await getPage(`${collectionsUrl(service)}?offset=150&limit=50&format=json`);
    expect(middle.previous).toBe(`${collectionsUrl(service)}?format=json&limit=50&offset=100`);
    const last = await getPage(`${collectionsUrl(service)}?offset=${first.count - 3}`);
    expect([last.results.length, last.next]).toEqual([3, null]);
    expect((await getPage(`${collectionsUrl(service)}?offset=${first.count + 1}`)).results).toEqual([]);
  });

  it('answers /api/collections.json and the list view headers; POST is not modelled beyond 401', async () => {
    const suffixed = await fetchReply(`${service.url}/api/collections.json?limit=2`);
    expect(suffixed.status).toBe(200);
    expect(suffixed.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect((JSON.parse(suffixed.text) as Page).results).toHaveLength(2);
    const options = await fetchReply(collectionsUrl(service), { method: 'OPTIONS' });
    expect((JSON.parse(options.text) as { name: string }).name).toBe('Collection List');
    expect((await fetchReply(collectionsUrl(service), { method: 'POST' })).status).toBe(401);
    expect((await fetchReply(collectionsUrl(service), { method: 'PUT' })).status).toBe(405);
  });

  it('rotates its scan with the unstable-order knob, and moves rows to the end in move mode', async () => {
    const stable = (await getPage(`${collectionsUrl(service)}?limit=1000`)).results.map((r) => r.id as number);
    service.setFaults({ unstableOrderRate: 1 });
    const rotated = (await getPage(`${collectionsUrl(service)}?limit=1000`)).results.map((r) => r.id as number);
    const start = stable.indexOf(rotated[0]!);
    expect(start).toBeGreaterThan(0);
    expect(rotated).toEqual([...stable.slice(start), ...stable.slice(0, start)].slice(0, 1000));
    expect(service.stats.rotatedScans).toBe(1);
    service.setFaults({ unstableOrderMode: 'move', moveCount: 3 });
    const moved = (await getPage(`${collectionsUrl(service)}?limit=1000`)).results.map((r) => r.id as number);
    expect(moved).not.toEqual(stable);
    expect(new Set(moved)).toEqual(new Set(stable));
    expect(moved.slice(-3).every((id) => stable.indexOf(id) < stable.length - 3)).toBe(true);
  });
});

describe('faults, as on the image list', () => {
  const paths = ['/api/collections/', '/api/collections/555/', '/api/collections/555/images/'];

  it.each(paths)('%s answers the 500, 502 and 429 knobs', async (path) => {
    service.setFaults({ rate500: 1 });
    expect((await fetchReply(`${service.url}${path}`)).status).toBe(500);
    service.setFaults({ rate500: 0, rate502: 1 });
    expect((await fetchReply(`${service.url}${path}`)).text).toContain('502 Bad Gateway');
    service.setFaults({ rate502: 0, rate429: 1, retryAfterSeconds: 4 });
    const throttled = await fetchReply(`${service.url}${path}`);
    expect([throttled.status, throttled.headers['retry-after']]).toEqual([429, '4']);
    expect(service.stats.collectionRequests).toBe(3);
  });

  it('truncates and resets, holds a worker and spends the latency', async () => {
    service.setFaults({ rateTruncate: 1 });
    const cut = await rawGet(service.url, '/api/collections/?limit=20');
    expect(cut.bodyBytes).toBeLessThan(cut.contentLength!);
    service.setFaults({ rateTruncate: 0, rateReset: 1 });
    expect((await rawGet(service.url, '/api/collections/555/')).bytes.length).toBe(0);
    service.setFaults({ rateReset: 0, workers: 1, pageLatencyMs: 60 });
    const started = performance.now();
    await Promise.all(paths.map((path) => fetchReply(`${service.url}${path}`)));
    // A lower bound only: the knob must delay the answer; how fast anything is belongs in the benchmark.
    expect(performance.now() - started).toBeGreaterThanOrEqual(170);
    expect(service.stats.workers.peakQueued).toBe(2);
  });
});

describe('inserts and deletes', () => {
  it('show up in /api/images/ and in their collection alike, with the counts agreeing', async () => {
    const target = await startService({ records: 3000, seed: 9 });
    try {
      const before = new Map((await everyCollection(target)).map((c) => [c.id as number, c]));
      target.setFaults({ insertRate: 1, insertCount: 3, deleteRate: 1, deleteCount: 4 });
      // Collection requests are data requests: time passes for them too.
      for (const path of ['/api/collections/', '/api/collections/1/', '/api/collections/1/images/']) {
        await fetchReply(`${target.url}${path}`);
      }
      target.setFaults({ insertRate: 0, deleteRate: 0 });
      const inserted = target.dataset.insertedIds();
      const deleted = target.dataset.deletedIds();
      expect([inserted.length, deleted.length]).toEqual([9, 12]);

      const listed = (await allPages(`${target.listUrl}?limit=1000`)).flatMap((p) => p.results);
      const after = await everyCollection(target);
      let counted = 0;
      const seen = new Map<number, Row>();
      for (const record of after) {
        const pages = await allPages(`${collectionsUrl(target)}${String(record.id)}/images/?limit=1000`);
        const images = pages.flatMap((p) => p.results);
        counted += images.length;
        for (const image of images) seen.set(image.id as number, image);
        const packages = (record.number_of_images as number) - images.length;
        expect([0, 1]).toContain(packages);
        const old = before.get(record.id as number);
        const changed = [...inserted, ...deleted].some((id) => target.dataset.collectionIdOf(id) === record.id);
        if (old !== undefined && !changed) expect(record).toEqual(old);
        // Saving or deleting an item saves its collection: modify_date is now, by the virtual clock.
        if (changed) expect(record.modify_date).toMatch(/^2026-03-02T/);
      }
      expect(counted).toBe(listed.length);
      expect([...seen.keys()].sort((a, b) => a - b)).toEqual(listed.map((r) => r.id as number).sort((a, b) => a - b));
      for (const id of inserted.filter((x) => !deleted.includes(x))) {
        expect(seen.get(id)).toEqual(listed.find((r) => r.id === id));
        const cid = target.dataset.collectionIdOf(id)!;
        expect(after.map((c) => c.id)).toContain(cid);
      }
      for (const id of deleted) expect(seen.has(id)).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('past the last collection make new collections, dated by the virtual clock and listed at the end', async () => {
    const target = await startService({ records: 3000, seed: 9 });
    try {
      const before = (await everyCollection(target)).map((c) => c.id as number);
      target.setFaults({ insertRate: 1, insertCount: 8000 });
      await fetchReply(`${target.listUrl}?limit=1`);
      target.setFaults({ insertRate: 0 });
      const after = await everyCollection(target);
      const grown = after.slice(before.length);
      expect(after.slice(0, before.length).map((c) => c.id)).toEqual(before);
      expect(grown.length).toBeGreaterThan(10);
      const pages = await allPages(`${target.listUrl}?limit=1000`);
      const listed = new Set(pages.flatMap((p) => p.results.map((r) => r.id as number)));
      for (const record of grown) {
        expect(record.add_date).toMatch(/^2026-03-02T/);
        const images = await getPage(`${collectionsUrl(target)}${String(record.id)}/images/?limit=1000`);
        expect((record.number_of_images as number) - images.count).toBeGreaterThanOrEqual(0);
        for (const image of images.results) {
          expect(listed.has(image.id as number)).toBe(true);
          // Uploaded now, into a collection made just before.
          expect(Date.parse(image.add_date as string)).toBeGreaterThanOrEqual(Date.parse(record.add_date as string));
          expect(image.add_date).toMatch(/^2026-03-02T/);
        }
      }
      expect(grown.some((c) => (c.number_of_images as number) > 0)).toBe(true);
    } finally {
      await target.close();
    }
  });
});
