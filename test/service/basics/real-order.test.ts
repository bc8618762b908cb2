/**
 * The service's real list order (`listOrder: 'real'`), read over HTTP: /api/images/ and /api/collections/ serve
 * every row once, as runs of ascending ids (tens to hundreds long) in shuffled order with a few rows out of place,
 * the same order for the same seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, type ServiceOptions, startService } from '../../../src/service/index.js';
import { allPages } from '../http.js';

const services: RunningService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
});

/** The ids a service serves at `path` (every page, limit 1000), in served order. */
async function servedIds(options: ServiceOptions, path = '/api/images/'): Promise<number[]> {
  const service = await startService(options);
  services.push(service);
  const pages = await allPages(`${service.url}${path}?limit=1000`);
  return pages.flatMap((page) => page.results.map((row) => row.id as number));
}

const ascending = (ids: number[]): number[] => [...ids].sort((a, b) => a - b);

/** The lengths of the maximal runs of ascending ids, in served order. */
function runLengths(ids: number[]): number[] {
  const lengths = [1];
  for (let i = 1; i < ids.length; i++) {
    if ((ids[i] as number) > (ids[i - 1] as number)) lengths[lengths.length - 1]!++;
    else lengths.push(1);
  }
  return lengths;
}

/** The share of rows served more than 1,000 places from their place in ascending order. */
function farFromPlace(ids: number[]): number {
  const place = new Map(ascending(ids).map((id, i) => [id, i]));
  return ids.filter((id, i) => Math.abs((place.get(id) as number) - i) > 1000).length / ids.length;
}

describe("the real list order ('real')", () => {
  const seed = 7;
  let real: number[];
  let byId: number[];
  beforeAll(async () => {
    real = await servedIds({ records: 20_000, seed, listOrder: 'real' });
    byId = await servedIds({ records: 20_000, seed });
  });

  it('serves every record of the id-ordered list exactly once', () => {
    expect(real).toHaveLength(byId.length);
    expect(new Set(real).size).toBe(real.length);
    expect(ascending(real)).toEqual(ascending(byId));
  });

  it('serves runs of ascending ids, tens to hundreds long, with a few rows out of place', () => {
    const lengths = runLengths(real);
    const inLongRuns = lengths.filter((n) => n >= 10).reduce((a, n) => a + n, 0);
    expect(inLongRuns / real.length).toBeGreaterThan(0.9);
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(100);
    expect(lengths.filter((n) => n >= 10 && n < 100).length).toBeGreaterThan(10);
    // The rows out of place: short runs between the long ones, a small share of the list.
    const stray = lengths.filter((n) => n < 10).reduce((a, n) => a + n, 0);
    expect(stray / real.length).toBeGreaterThan(0.005);
    expect(stray / real.length).toBeLessThan(0.1);
  });

  it('shuffles the runs: most rows are served far from their place in id order, as none is in the id order', () => {
    expect(farFromPlace(real)).toBeGreaterThan(0.5);
    expect(farFromPlace(byId)).toBe(0);
  });

  it('serves the same order for the same seed, another for another seed', async () => {
    expect(await servedIds({ records: 20_000, seed, listOrder: 'real' })).toEqual(real);
    expect(await servedIds({ records: 20_000, seed: seed + 1, listOrder: 'real' })).not.toEqual(real);
  });

  it('lists the collections in the real order too, each once', async () => {
    const collections = await servedIds({ records: 20_000, seed, listOrder: 'real' }, '/api/collections/');
    const ordered = await servedIds({ records: 20_000, seed }, '/api/collections/');
    expect(ascending(collections)).toEqual(ascending(ordered));
    expect(collections).not.toEqual(ordered);
    expect(Math.max(...runLengths(collections))).toBeGreaterThanOrEqual(10);
  });

  it('refuses an order it does not know, naming it', async () => {
    const listOrder = 'random' as ServiceOptions['listOrder'];
    await expect(startService({ listOrder })).rejects.toThrow(
      `service: listOrder must be 'id' or 'real', got "random"`,
    );
  });
});
