/**
 * A collection made private (`Dataset.hideCollection`) and public again (`Dataset.showCollection`), over real HTTP:
 * its images rejoin the image list and `/api/images/<id>/`, its numeric id answers 200 again and its `modify_date`
 * moves; a collection that was never made private by hand is refused in one line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../../src/service/index.js';
import { allPages, fetchReply, getPage } from '../http.js';

const services: RunningService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

type Row = Record<string, unknown>;

async function listedIds(service: RunningService): Promise<number[]> {
  return (await allPages(`${service.listUrl}?limit=200`)).flatMap((p) => p.results.map((r) => r['id'] as number));
}

describe('Dataset.showCollection', () => {
  it('lists a collection hidden earlier again: its images, its own view and a later modify_date', async () => {
    const service = await startService({ records: 400, seed: 9 });
    services.push(service);
    const { dataset } = service;
    const before = await listedIds(service);
    const cid = dataset.collectionIdOf(dataset.idAt(200))!;
    const dated = (await getPage(`${service.url}/api/collections/${cid}/`)) as unknown as Row;
    const hidden = dataset.hideCollection(cid);
    expect(hidden.length).toBeGreaterThan(0);
    expect((await fetchReply(`${service.url}/api/collections/${cid}/`)).status).toBe(403);
    expect((await fetchReply(`${service.url}/api/images/${hidden[0]}/`)).status).toBe(404);

    expect(dataset.showCollection(cid)).toEqual(hidden);
    expect(await listedIds(service)).toEqual(before);
    expect(dataset.isPrivate(hidden[0]!)).toBe(false);
    for (const id of hidden) expect((await fetchReply(`${service.url}/api/images/${id}/`)).status).toBe(200);
    const shown = (await getPage(`${service.url}/api/collections/${cid}/`)) as unknown as Row;
    expect(shown['number_of_images']).toBe(dated['number_of_images']);
    expect(shown['private']).toBe(false);
    expect(String(shown['modify_date']) > String(dated['modify_date'])).toBe(true);
    const members = (await allPages(`${service.url}/api/collections/${cid}/images/?limit=100`)).flatMap(
      (p) => p.results,
    );
    expect(members.map((r) => r['id'])).toEqual(hidden);
    const scanned = (await allPages(`${service.url}/api/collections/?limit=500`)).flatMap((p) => p.results);
    expect(scanned.map((r) => r['id'])).toContain(cid);
  });

  it('refuses a collection that is public, or private from the start', async () => {
    const service = await startService({ records: 1000, seed: 9 }); // 400 records of seed 9 hold no private one
    services.push(service);
    const { dataset } = service;
    const cid = dataset.collectionIdOf(dataset.idAt(10))!;
    expect(() => dataset.showCollection(cid)).toThrow(
      `service: collection ${cid} was not made private by hideCollection`,
    );
    expect(dataset.privateIds().length).toBeGreaterThan(0);
    const born = dataset.collectionIdOf(dataset.privateIds()[0]!)!;
    expect(born).toBeGreaterThan(0);
    expect(() => dataset.showCollection(born)).toThrow(
      `service: collection ${born} was not made private by hideCollection`,
    );
  });
});
