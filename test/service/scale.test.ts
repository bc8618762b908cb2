/** A million generated records: the deepest page is the right 100 records (timing is measured by hand, not here). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/service/index.js';
import { getPage } from './http.js';

let service: RunningService;

beforeAll(async () => {
  service = await startService({ records: 1_000_000, seed: 1 });
});
afterAll(() => service.close());

it('serves the 100 records at offset 999,900 of a 1,000,000-record data set', async () => {
  const page = await getPage(`${service.listUrl}?offset=999900`);
  expect(page.count).toBe(1_000_000);
  expect(page.next).toBeNull();
  expect(page.previous).toBe(`${service.listUrl}?limit=100&offset=999800`);
  expect(page.results.map((r) => r.id)).toEqual(
    Array.from({ length: 100 }, (_, i) => service.dataset.idAt(999_900 + i)),
  );
  expect(page.results[99]).toEqual(service.dataset.recordAt(999_999));
  expect(new Set(service.dataset.ids()).size).toBe(1_000_000);
});
