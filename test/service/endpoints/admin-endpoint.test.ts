/**
 * `POST /admin/change` (on with `admin: true`, `img-etl serve --admin`; a 404 like any unknown path without it) and
 * its in-process twin `RunningService.change`: K collections chosen at random (seeded) get one kind of change, and the
 * public endpoints then serve it. Real loopback HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeResult } from '../../../src/service/dataset/admin-change.js';
import { type RunningService, startService } from '../../../src/service/index.js';
import { allPages, fetchReply, getPage } from '../http.js';

const services: RunningService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function serve(admin: boolean): Promise<RunningService> {
  const service = await startService({ records: 600, seed: 12, admin });
  services.push(service);
  return service;
}

async function change(service: RunningService, query: string): Promise<ChangeResult> {
  const reply = await fetchReply(`${service.url}/admin/change?${query}`, { method: 'POST' });
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers['content-type']).toBe('application/json');
  return JSON.parse(reply.text) as ChangeResult;
}

const status = async (url: string): Promise<number> => (await fetchReply(url)).status;

describe('POST /admin/change', () => {
  it('answers 404 without admin, as an unknown path does', async () => {
    const service = await serve(false);
    const reply = await fetchReply(`${service.url}/admin/change?kind=edit`, { method: 'POST' });
    expect(reply.status).toBe(404);
    expect(reply.text).toBe((await fetchReply(`${service.url}/nowhere/`, { method: 'POST' })).text);
  });

  it('edits, deletes and inserts one record in each of K collections, and the endpoints serve it', async () => {
    const service = await serve(true);
    const edited = await change(service, 'kind=edit&collections=3&seed=4');
    expect(edited.kind).toBe('edit');
    expect(new Set(edited.collections).size).toBe(3);
    expect(edited.records).toHaveLength(3);
    for (const [i, id] of edited.records.entries()) {
      const record = await getPage(`${service.url}/api/images/${id}/`);
      expect((record as unknown as Record<string, unknown>)['name']).toMatch(/ \(edited \d+\)$/);
      expect(service.dataset.collectionIdOf(id)).toBe(edited.collections[i]);
    }
    const deleted = await change(service, 'kind=delete&collections=2&seed=5');
    expect(deleted.records).toHaveLength(2);
    for (const id of deleted.records) expect(await status(`${service.url}/api/images/${id}/`)).toBe(404);
    const inserted = await change(service, 'kind=insert&collections=2&seed=6');
    expect(inserted.records).toHaveLength(2);
    for (const [i, id] of inserted.records.entries()) {
      const members = await allPages(`${service.url}/api/collections/${inserted.collections[i]}/images/?limit=100`);
      expect(members.flatMap((p) => p.results.map((r) => r['id']))).toContain(id);
    }
    const listed = (await allPages(`${service.listUrl}?limit=200`)).flatMap((p) => p.results.map((r) => r['id']));
    expect(listed).toEqual(expect.arrayContaining(inserted.records));
    expect(listed).toHaveLength(600 - 2 + 2);
  });

  it('makes collections private, public again, new and deleted', async () => {
    const service = await serve(true);
    const hidden = await change(service, 'kind=private&collections=2&seed=1');
    expect(hidden.collections).toHaveLength(2);
    for (const cid of hidden.collections) expect(await status(`${service.url}/api/collections/${cid}/`)).toBe(403);
    const shown = await change(service, 'kind=public&collections=1&seed=2');
    expect(hidden.collections).toContain(shown.collections[0]);
    expect(await status(`${service.url}/api/collections/${shown.collections[0]}/`)).toBe(200);
    for (const id of shown.records) expect(await status(`${service.url}/api/images/${id}/`)).toBe(200);
    const made = await change(service, 'kind=new-collection&collections=1&seed=3');
    expect(made.records.length).toBeGreaterThan(0);
    const images = await allPages(`${service.url}/api/collections/${made.collections[0]}/images/?limit=100`);
    expect(images.flatMap((p) => p.results.map((r) => r['id']))).toEqual(made.records);
    const gone = await change(service, 'kind=delete-collection&collections=1&seed=4');
    expect(await status(`${service.url}/api/collections/${gone.collections[0]}/`)).toBe(404);
    for (const id of gone.records) expect(await status(`${service.url}/api/images/${id}/`)).toBe(404);
  });

  it('new-collection adds exactly one collection, holding the records it names, after an insert too', async () => {
    const service = await serve(true);
    const collections = async () => (await getPage(`${service.url}/api/collections/?limit=1`)).count;
    const before = await collections();
    // An insert takes the free id of an earlier collection: the new collection after it steps over nothing.
    await change(service, 'kind=insert&collections=1&seed=3');
    const made = await change(service, 'kind=new-collection&collections=1&seed=4');
    expect(made.collections).toHaveLength(1);
    expect(await collections()).toBe(before + 1);
    const images = await allPages(`${service.url}/api/collections/${made.collections[0]}/images/?limit=100`);
    expect(images.flatMap((p) => p.results.map((r) => r['id']))).toEqual(made.records);
    expect(await getPage(`${service.listUrl}?limit=1`)).toMatchObject({ count: 600 + 1 + made.records.length });
  });

  it('is seeded, and the same as RunningService.change', async () => {
    const [a, b] = [await serve(true), await serve(true)];
    const overHttp = await change(a, 'kind=edit&collections=4&seed=9');
    expect(b.change({ kind: 'edit', collections: 4, seed: 9 })).toEqual(overHttp);
    const [id, origin] = [overHttp.records[0]!, 'http://x'];
    expect(a.dataset.recordJson(id, origin)).toBe(b.dataset.recordJson(id, origin));
  });

  it('refuses a bad request in one line, and other methods with 405', async () => {
    const service = await serve(true);
    const bad = await fetchReply(`${service.url}/admin/change?kind=rename`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({
      detail:
        'service: kind must be one of edit, delete, insert, private, public, new-collection, delete-collection, ' +
        'got "rename"',
    });
    const none = await fetchReply(`${service.url}/admin/change?kind=public&collections=1`, { method: 'POST' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('only 0 collections can take a public change, asked for 1');
    expect((await fetchReply(`${service.url}/admin/change?kind=edit`)).status).toBe(405);
  });
});
