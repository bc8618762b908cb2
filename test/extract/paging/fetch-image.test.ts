/** fetchImage against the bundled service over loopback (a scripted server only where the service has no knob). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RetryEvent } from '../../../src/extract/paging/extract-events.js';
import { fetchImage, type FetchImageOptions } from '../../../src/extract/paging/fetch-image.js';
import { HttpClient } from '../../../src/extract/paging/http-client.js';
import type { RetryOptions } from '../../../src/extract/paging/retry.js';
import { NO_FAULTS, type RunningService, startService } from '../../../src/service/index.js';
import { fixtureRecords, startFixtureService } from '../../helpers/fixture-service.js';
import { sendJson, startScriptedServer } from '../../helpers/scripted-server.js';
import { failure } from '../../helpers/extract-failure.js';

const FAST: RetryOptions = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, retryAfterFloorMs: 1 };

let service: RunningService;

beforeAll(async () => {
  service = await startFixtureService({ records: 200, seed: 5 });
});
afterAll(() => service.close());
beforeEach(() => {
  service.setFaults({ ...NO_FAULTS, plan: undefined });
  service.resetStats();
});

const fetchFrom = (id: number, options: FetchImageOptions = {}) =>
  fetchImage(id, { baseUrl: service.url, retry: FAST, ...options });

describe('a listed image', () => {
  it('resolves to the record and its exact bytes in the list, for every record, real and generated', async () => {
    const page = await fetch(`${service.listUrl}?limit=1000`).then((r) => r.text());
    const parsed = JSON.parse(page) as { count: number; results: Record<string, unknown>[] };
    const bodies: string[] = [];
    for (const listed of parsed.results) {
      const fetched = await fetchFrom(listed.id as number);
      if (fetched.status !== 'ok') throw new Error(`image ${String(listed.id)} is ${fetched.status}`);
      expect(fetched.record).toEqual(listed);
      bodies.push(Buffer.from(fetched.body).toString('utf8'));
    }
    expect(parsed.results.map((r) => r.id)).toEqual(expect.arrayContaining(fixtureRecords().map((r) => r.id)));
    expect(page).toBe(`{"count":${parsed.count},"next":null,"previous":null,"results":[${bodies.join(',')}]}`);
  });

  it('reuses a client it is given, and leaves it open', async () => {
    const client = new HttpClient(new URL(service.listUrl));
    try {
      for (const id of [14225, 14228, 9035]) expect((await fetchFrom(id, { client })).status).toBe('ok');
      expect((await client.getPage(`${service.listUrl}?limit=1`)).page.count).toBe(259);
    } finally {
      await client.close();
    }
  });
});

describe('gone', () => {
  it('is what a deleted, a private and a never-made image resolve to', async () => {
    const target = await startService({ records: 400, seed: 7, faults: { deleteRate: 1, deleteCount: 1 } });
    try {
      const deleted = target.dataset.idAt(0);
      expect((await fetchImage(deleted, { baseUrl: target.url, retry: FAST })).status).toBe('ok');
      // That request deleted a record, maybe this one; the next ones delete more.
      const gone = target.dataset.deletedIds();
      target.setFaults({ deleteRate: 0 });
      const listed = new Set(target.dataset.ids());
      expect(target.dataset.privateIds().length).toBeGreaterThan(0);
      const unmade = (id: number): boolean => !listed.has(id) && !target.dataset.isPrivate(id) && !gone.includes(id);
      const never = [...listed].map((id) => id + 1).find(unmade)!;
      for (const id of [...gone, target.dataset.privateIds()[0]!, never]) {
        expect(await fetchImage(id, { baseUrl: target.url, retry: FAST })).toEqual({ status: 'gone', httpStatus: 404 });
      }
    } finally {
      await target.close();
    }
  });
});

describe('failures and retries', () => {
  it('retries a 502, a truncated body and a reset connection, then resolves', async () => {
    const plan = ['502', 'truncate', 'reset'] as const;
    let k = 0;
    service.setFaults({ plan: () => plan[k++] });
    const events: RetryEvent[] = [];
    const fetched = await fetchFrom(14225, { retry: { ...FAST, attempts: 4 }, onEvent: (e) => events.push(e) });
    expect(fetched.status).toBe('ok');
    expect(events.map((e) => [e.attempt, e.url])).toEqual([1, 2, 3].map((a) => [a, `${service.listUrl}14225/`]));
    expect(events[0]!.reason).toBe('returned 502');
    expect(service.stats.detailRequests).toBe(4);
  });

  it("honours a 429's Retry-After", async () => {
    let k = 0;
    service.setFaults({ retryAfterSeconds: 0, plan: () => (k++ === 0 ? '429' : undefined) });
    const events: RetryEvent[] = [];
    expect((await fetchFrom(14225, { onEvent: (e) => events.push(e) })).status).toBe('ok');
    const reason = 'returned 429 (Request was throttled. Expected available in 0 seconds.)';
    expect(events.map((e) => [e.reason, e.delayMs])).toEqual([[reason, 1]]);
  });

  it('throws an ExtractError when a 500 outlasts the attempts', async () => {
    service.setFaults({ rate500: 1 });
    const error = await failure(fetchFrom(14225));
    expect(error.message).toBe(`extract: GET ${service.listUrl}14225/ returned 500 after 3 attempts`);
    expect([error.code, error.status]).toEqual(['HTTP_STATUS', 500]);
    expect(service.stats.detailRequests).toBe(3);
  });

  it("throws on a 404 that is not DRF's (a wrong base URL), rather than calling the image gone", async () => {
    const error = await failure(fetchImage(14225, { baseUrl: `${service.url}/mirror/`, retry: FAST }));
    // Django's HTML page is no answer of DRF's: retried like a proxy's page (the one retry policy), then thrown.
    expect(error.message).toBe(`extract: GET ${service.url}/mirror/api/images/14225/ returned 404 after 3 attempts`);
    expect([error.code, error.status, error.retryable, error.drf]).toEqual(['HTTP_STATUS', 404, true, false]);
  });

  it('times out waiting for the headers, as configured', async () => {
    service.setFaults({ pageLatencyMs: 5_000 });
    const error = await failure(fetchFrom(14225, { retry: { attempts: 1 }, http: { headersTimeoutMs: 50 } }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe(
      `extract: GET ${service.listUrl}14225/ timed out waiting for the response headers (50 ms)`,
    );
  });

  it('refuses an id that is not a positive integer', async () => {
    for (const id of [0, -3, 1.5, Number.NaN]) {
      await expect(fetchImage(id)).rejects.toThrow(`extract: an image id must be a positive integer, got ${id}`);
    }
  });
});

describe('what only a scripted server can show', () => {
  it('sends the token to the base host, and refuses a record of another id', async () => {
    const s = await startScriptedServer((_req, res) => sendJson(res, { id: 8, name: 'another' }));
    try {
      const error = await failure(fetchImage(7, { baseUrl: s.origin, retry: FAST, http: { token: 'sekrit' } }));
      expect(error.message).toBe(
        `extract: GET ${s.origin}/api/images/7/ returned the record of id 8, not 7 after 3 attempts`,
      );
      expect(error.code).toBe('BAD_BODY');
      const seen = s.seen.map((r) => [r.url, r.headers['authorization']]);
      expect(seen).toEqual(Array(3).fill(['/api/images/7/', 'Token sekrit']));
    } finally {
      await s.close();
    }
  });
});
