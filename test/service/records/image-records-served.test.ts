/** The service counts the image records it answers by every endpoint (what the incremental bench scenario judges). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { fetchReply } from '../http.js';

let service: RunningService;
beforeAll(async () => {
  service = await startFixtureService({ records: 300, seed: 3 });
});
afterAll(() => service.close());

it('counts list pages, collection image pages and single images alike', async () => {
  service.resetStats();
  const list = JSON.parse((await fetchReply(`${service.listUrl}?limit=10`)).text) as { results: { id: number }[] };
  const id = list.results[0]!.id;
  const cid = service.dataset.collectionIdOf(id)!;
  const origin = new URL(service.listUrl).origin;
  const own = JSON.parse((await fetchReply(`${origin}/api/collections/${cid}/images/?limit=1000`)).text) as {
    results: unknown[];
  };
  await fetchReply(`${service.listUrl}${id}/`);
  await fetchReply(`${service.listUrl}999999999/`); // 404: no record
  expect(own.results.length).toBeGreaterThan(0);
  expect(service.stats.imageRecordsServed).toBe(10 + own.results.length + 1);
  expect(service.stats.recordsServed).toBe(10);
});
