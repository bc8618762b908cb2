/** Each fault knob observed over HTTP (server-side counters, raw sockets), all seeded. */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_FAULTS, type RunningService, startService } from '../../../src/service/index.js';
import { fetchReply, rawGet } from '../http.js';

let service: RunningService;

beforeAll(async () => {
  service = await startService({ records: 300, seed: 5 });
});
afterAll(() => service.close());
beforeEach(() => {
  service.setFaults({ ...NO_FAULTS, plan: undefined });
  service.resetStats();
});

async function statuses(target: RunningService, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await rawGet(target.url, '/api/images/?limit=5');
    seen.push(reply.bytes.length === 0 ? 0 : Number(reply.bytes.subarray(9, 12).toString()));
  }
  return seen;
}

describe('workers', () => {
  it('with one worker, concurrent requests never overlap: the rest wait in line', async () => {
    service.setFaults({ workers: 1, pageLatencyMs: 150 });
    const replies = await Promise.all([1, 2, 3].map(() => fetchReply(`${service.listUrl}?limit=5`)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    const { workers } = service.stats;
    expect(workers.peakActive).toBe(1);
    expect(workers.peakQueued).toBe(2);
    expect(workers.active).toBe(0);
  });

  it('with three workers, three requests are served at once', async () => {
    service.setFaults({ workers: 3, pageLatencyMs: 150 });
    await Promise.all([1, 2, 3].map(() => fetchReply(`${service.listUrl}?limit=5`)));
    expect(service.stats.workers.peakActive).toBe(3);
    expect(service.stats.workers.peakQueued).toBe(0);
  });
});

describe('latency', () => {
  // Lower bounds only: the knob must delay the answer; how fast anything is belongs in the benchmark.
  it('per page delays each list response by at least that many milliseconds', async () => {
    service.setFaults({ pageLatencyMs: 120 });
    const started = performance.now();
    await fetchReply(`${service.listUrl}?limit=1`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('per record scales with the records on the page', async () => {
    service.setFaults({ recordLatencyMs: 15 });
    const started = performance.now();
    await fetchReply(`${service.listUrl}?limit=10`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('is spent holding a worker, so it queues others', async () => {
    service.setFaults({ workers: 1, recordLatencyMs: 15 });
    await Promise.all([fetchReply(`${service.listUrl}?limit=10`), fetchReply(`${service.listUrl}?limit=10`)]);
    expect(service.stats.workers.peakQueued).toBe(1);
  });
});

describe('error statuses', () => {
  it("rate500 answers Django's HTML Server Error page", async () => {
    service.setFaults({ rate500: 1 });
    const reply = await fetchReply(service.listUrl);
    expect(reply.status).toBe(500);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.text).toContain('<h1>Server Error (500)</h1>');
    expect(service.stats.faults['500']).toBe(1);
  });

  it.each([
    [502, 'rate502', '502 Bad Gateway'],
    [504, 'rate504', '504 Gateway Time-out'],
  ] as const)('%i comes as the proxy HTML page', async (status, knob, title) => {
    service.setFaults({ [knob]: 1 });
    const reply = await fetchReply(service.listUrl);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('text/html');
    expect(reply.text).toContain(`<title>${title}</title>`);
    expect(service.stats.byStatus[status]).toBe(1);
  });

  it('rate429 answers 429 with the configured Retry-After', async () => {
    service.setFaults({ rate429: 1, retryAfterSeconds: 7 });
    const reply = await fetchReply(service.listUrl);
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('7');
    expect(reply.text).toBe('{"detail":"Request was throttled. Expected available in 7 seconds."}');
  });
});

describe('broken connections', () => {
  it('rateTruncate sends status 200 and the full Content-Length, then part of the body, then closes', async () => {
    service.setFaults({ rateTruncate: 1 });
    const exchange = await rawGet(service.url, '/api/images/?limit=50');
    expect(exchange.bytes.subarray(0, 12).toString()).toBe('HTTP/1.1 200');
    expect(exchange.contentLength).toBeGreaterThan(0);
    expect(exchange.bodyBytes).toBeGreaterThan(0);
    expect(exchange.bodyBytes).toBeLessThan(exchange.contentLength!);
    expect(service.stats.faults.truncate).toBe(1);
  });

  it('rateTruncate cuts only 200 bodies, as --help says: a 404 and a crashing view answer whole', async () => {
    service.setFaults({ rateTruncate: 1 });
    for (const [path, status] of [
      ['/api/images/999999999/', '404'],
      ['/api/collections/abc/', '500'],
    ] as const) {
      const exchange = await rawGet(service.url, path);
      expect([path, exchange.bytes.subarray(9, 12).toString()]).toEqual([path, status]);
      expect([path, exchange.bodyBytes]).toEqual([path, exchange.contentLength]);
    }
    expect(service.stats.faults.truncate).toBe(0);
  });

  it('rateReset destroys the connection without a response', async () => {
    service.setFaults({ rateReset: 1 });
    const exchange = await rawGet(service.url, '/api/images/');
    expect(exchange.bytes.length).toBe(0);
    expect(service.stats.faults.reset).toBe(1);
  });
});

describe('plan', () => {
  it('can fail exactly the third list request with a 502', async () => {
    const fresh = await startService({ records: 50, faults: { plan: ({ n }) => (n === 3 ? '502' : undefined) } });
    try {
      expect(await statuses(fresh, 5)).toEqual([200, 200, 502, 200, 200]);
    } finally {
      await fresh.close();
    }
  });

  it('is told the method, the request target and the list request number', async () => {
    const seen: string[] = [];
    service.setFaults({ plan: ({ method, url, n }) => (seen.push(`${n} ${method} ${url}`), undefined) });
    await fetchReply(`${service.listUrl}?limit=2`);
    await fetchReply(`${service.url}/nothing-here/`);
    await fetchReply(`${service.listUrl}?offset=4`, { method: 'HEAD' });
    expect(seen.map((s) => s.replace(/^\d+ /, ''))).toEqual(['GET /api/images/?limit=2', 'HEAD /api/images/?offset=4']);
    expect(Number(seen[1]!.split(' ')[0]) - Number(seen[0]!.split(' ')[0])).toBe(1);
  });

  it("can force a clean answer ('none') whatever the rates", async () => {
    service.setFaults({ rate500: 1, plan: () => 'none' });
    expect((await fetchReply(service.listUrl)).status).toBe(200);
  });
});

describe('fault seed', () => {
  it('makes the sequence of faults repeat exactly, and a different seed changes it', async () => {
    const faults = { rate500: 0.2, rate502: 0.2, rate429: 0.1, rateReset: 0.1, retryAfterSeconds: 0 };
    const make = (faultSeed: number): Promise<RunningService> =>
      startService({ records: 50, faults: { ...faults, faultSeed } });
    const [a, b, c] = await Promise.all([make(9), make(9), make(10)]);
    try {
      const first = await statuses(a, 40);
      expect(await statuses(b, 40)).toEqual(first);
      expect(await statuses(c, 40)).not.toEqual(first);
      const kinds = new Set(first);
      expect([...kinds].every((status) => [0, 200, 429, 500, 502].includes(status))).toBe(true);
      expect(kinds.size).toBeGreaterThanOrEqual(4);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});

describe('scope and control', () => {
  it('faults act on GET and HEAD of the data views only', async () => {
    service.setFaults({ rate500: 1 });
    expect((await fetchReply(service.listUrl, { method: 'OPTIONS' })).status).toBe(200);
    expect((await fetchReply(service.listUrl, { method: 'POST' })).status).toBe(405);
    expect((await fetchReply(`${service.url}/elsewhere/`)).status).toBe(404);
  });

  it('setFaults changes faults while running and refuses bad values', async () => {
    service.setFaults({ rate502: 1 });
    expect((await fetchReply(service.listUrl)).status).toBe(502);
    service.setFaults({ rate502: 0 });
    expect((await fetchReply(service.listUrl)).status).toBe(200);
    expect(() => service.setFaults({ rate500: 2 })).toThrow(
      'service: rate500 must be a probability from 0 to 1, got 2',
    );
    expect(() => service.setFaults({ workers: -1 })).toThrow('service: workers must be a non-negative integer, got -1');
    // A value of another type is shown as JSON, never as [object Object] or as a number it is not.
    expect(() => service.setFaults({ rate500: '0.5' as never })).toThrow('from 0 to 1, got "0.5"');
    expect(() => service.setFaults({ pageLatencyMs: {} as never })).toThrow('must be a non-negative number, got {}');
    expect(() => service.setFaults({ rate500: 0.6, rate502: 0.6 })).toThrow('fault rates add up to 1.2');
  });

  it('counts requests, statuses, pages and records', async () => {
    await fetchReply(`${service.listUrl}?limit=7`);
    await fetchReply(`${service.listUrl}?limit=3`, { method: 'HEAD' });
    await fetchReply(`${service.url}/x/`);
    const stats = service.stats;
    expect(stats.requests).toBe(3);
    expect(stats.listRequests).toBe(2);
    expect(stats.byStatus).toEqual({ 200: 2, 404: 1 });
    expect(stats.pagesServed).toBe(2);
    expect(stats.recordsServed).toBe(10);
  });
});

describe('close', () => {
  it('ends idle keep-alive connections instead of waiting for them', async () => {
    const fresh = await startService({ records: 10 });
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      httpRequest(fresh.listUrl, { agent }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });
    await fresh.close();
    agent.destroy();
  });

  it('cuts requests waiting out their latency short', async () => {
    const fresh = await startService({ records: 10, faults: { pageLatencyMs: 60_000 } });
    const pending = fetchReply(fresh.listUrl).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fresh.close();
    expect(await pending).toBe('failed');
  });
});
