/** /api/images/<id>/ over HTTP: the list's record byte for byte, 404s, the token form, methods, faults, mutations. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_FAULTS, type RunningService, startService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { allPages, fetchReply, getPage, rawGet } from '../http.js';

const NOT_FOUND = '{"detail":"Not found."}';
const INSTANCE_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';

let service: RunningService;

beforeAll(async () => {
  service = await startFixtureService({ records: 300, seed: 1 });
});
afterAll(() => service.close());
beforeEach(() => {
  service.setFaults({ ...NO_FAULTS, plan: undefined });
  service.resetStats();
});

const detailUrl = (target: RunningService, pk: number | string): string => `${target.listUrl}${pk}/`;

/** The first image of a private collection (the data set must have one). */
function privateId(target: RunningService): number {
  const [id] = target.dataset.privateIds();
  if (id === undefined) throw new Error('the data set has no private collection');
  return id;
}

/** A listed id with no listed, private or given id next to it above: an id that was never made. */
function unmadeId(target: RunningService): number {
  const listed = new Set(target.dataset.ids());
  const hidden = new Set(target.dataset.privateIds());
  for (let id = 2; ; id++) if (!listed.has(id) && !hidden.has(id) && listed.has(id - 1)) return id;
}

describe('a listed image', () => {
  it('answers the exact bytes the list serves for it, for every record (real and generated)', async () => {
    const page = await fetchReply(`${service.listUrl}?limit=1000`);
    const parsed = JSON.parse(page.text) as { count: number; results: { id: number }[] };
    expect(parsed.results).toHaveLength(359);
    const details: string[] = [];
    for (const { id } of parsed.results) {
      const reply = await fetchReply(detailUrl(service, id));
      expect(reply.status).toBe(200);
      details.push(reply.text);
    }
    // The page is the envelope around the records joined by commas: each detail body is its record's exact text.
    expect(page.text).toBe(`{"count":359,"next":null,"previous":null,"results":[${details.join(',')}]}`);
  });

  it("carries the view's headers and an exact Content-Length", async () => {
    const reply = await fetchReply(detailUrl(service, 14225));
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['vary']).toBe('Accept');
    expect(reply.headers['allow']).toBe(INSTANCE_ALLOW);
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
    expect(reply.text).toContain(`"url":"${service.url}/images/14225/"`);
  });

  it('re-bases its URLs on the Host header, as the list does', async () => {
    const reply = await fetchReply(detailUrl(service, 14228), { headers: { host: 'mirror.test' } });
    const page = await fetchReply(`${service.listUrl}?limit=1000`, { headers: { host: 'mirror.test' } });
    expect(reply.text).toContain('"url":"http://mirror.test/images/14228/"');
    expect(page.text).toContain(`,${reply.text},`);
  });

  it('is found by any spelling Python int() reads: 0014225 is 14225', async () => {
    const plain = await fetchReply(detailUrl(service, 14225));
    const padded = await fetchReply(detailUrl(service, '0014225'));
    expect(padded.status).toBe(200);
    expect(padded.body.equals(plain.body)).toBe(true);
  });
});

describe('404 {"detail":"Not found."}', () => {
  it.each([
    ['an id that was never made', (s: RunningService) => unmadeId(s)],
    ['an id past every id', () => 4_000_000_000],
    ['an id beyond 32 bits', () => '99999999999999999999'],
    ['zero', () => 0],
    ['a negative id', () => -5],
    ['a non-numeric id', () => 'abc'],
    ['an image of a private collection', (s: RunningService) => privateId(s)],
  ] as const)('for %s', async (_, pk) => {
    const reply = await fetchReply(detailUrl(service, pk(service)));
    expect(reply.status).toBe(404);
    expect(reply.text).toBe(NOT_FOUND);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['allow']).toBe(INSTANCE_ALLOW);
  });

  it('for a deleted image, which leaves the list at the same moment', async () => {
    const target = await startService({ records: 200, seed: 3 });
    try {
      const before = target.dataset.ids();
      target.setFaults({ deleteRate: 1, deleteCount: 3 });
      const page = await getPage(`${target.listUrl}?limit=1000`);
      target.setFaults({ deleteRate: 0 });
      const deleted = target.dataset.deletedIds();
      expect(deleted).toHaveLength(3);
      expect(page.count).toBe(197);
      for (const id of deleted) {
        expect(before).toContain(id);
        expect(page.results.map((r) => r.id)).not.toContain(id);
        const reply = await fetchReply(detailUrl(target, id));
        expect([reply.status, reply.text]).toEqual([404, NOT_FOUND]);
      }
    } finally {
      await target.close();
    }
  });

  it('for an orphan (counted by the list, never served)', async () => {
    const target = await startService({ records: 200, seed: 3, faults: { orphanRate: 0.2 } });
    try {
      const orphan = target.dataset.ids().find((id) => target.isOrphan(id))!;
      const served = target.servedIds()[0]!;
      expect((await fetchReply(detailUrl(target, orphan))).status).toBe(404);
      expect((await fetchReply(detailUrl(target, served))).status).toBe(200);
    } finally {
      await target.close();
    }
  });
});

describe('the token form <TOKEN>-<id>', () => {
  it('serves a public image whatever the token', async () => {
    const plain = await fetchReply(detailUrl(service, 14225));
    const tokened = await fetchReply(detailUrl(service, 'ABCDEFGH-14225'));
    expect(tokened.status).toBe(200);
    expect(tokened.body.equals(plain.body)).toBe(true);
  });

  it("serves a private image with its collection's token, and answers 403 to any other", async () => {
    const id = privateId(service);
    const token = service.dataset.privateTokenOf(id)!;
    expect(token).toMatch(/^[A-Z]{8}$/);
    const right = await fetchReply(detailUrl(service, `${token}-${id}`));
    expect(right.status).toBe(200);
    // Image.get_absolute_url names a private image by its collection's token (models.py L1151-1161).
    expect(JSON.parse(right.text)).toMatchObject({ id, url: `${service.url}/collections/${token}/images/${id}/` });
    const wrong = await fetchReply(detailUrl(service, `${token === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA'}-${id}`));
    expect(wrong.status).toBe(403);
    expect(wrong.text).toBe('{"detail":"You do not have permission to perform this action."}');
  });

  it('answers 404 for an id that does not exist', async () => {
    const reply = await fetchReply(detailUrl(service, `ABCDEFGH-${unmadeId(service)}`));
    expect([reply.status, reply.text]).toEqual([404, NOT_FOUND]);
  });
});

describe('paths, methods and formats', () => {
  it('redirects the path without its trailing slash (APPEND_SLASH), keeping the query', async () => {
    const reply = await fetchReply(`${service.listUrl}14225?format=json`);
    expect(reply.status).toBe(301);
    expect(reply.headers['location']).toBe('/api/images/14225/?format=json');
  });

  it('HEAD answers like GET without a body', async () => {
    const get = await fetchReply(detailUrl(service, 14225));
    const head = await fetchReply(detailUrl(service, 14225), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['allow', 'content-type', 'vary', 'content-length']) {
      expect(head.headers[name]).toBe(get.headers[name]);
    }
  });

  it('OPTIONS answers the view metadata', async () => {
    const reply = await fetchReply(detailUrl(service, 14225), { method: 'OPTIONS' });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({
      name: 'Image Instance',
      description: '',
      renders: ['application/json', 'text/html'],
      parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
    });
  });

  it.each(['PUT', 'PATCH', 'DELETE'])('an anonymous %s answers 401 on an image it finds, else 404', async (method) => {
    const headers = { 'content-type': 'application/json' };
    const found = await fetchReply(detailUrl(service, 14225), { method, headers });
    expect(found.status).toBe(401);
    expect(found.text).toBe('{"detail":"Authentication credentials were not provided."}');
    expect(found.headers['www-authenticate']).toBe('Token');
    const missing = await fetchReply(detailUrl(service, unmadeId(service)), { method });
    expect([missing.status, missing.text]).toEqual([404, NOT_FOUND]);
  });

  it('POST answers 405 with the Allow header', async () => {
    const reply = await fetchReply(detailUrl(service, 14225), { method: 'POST' });
    expect(reply.status).toBe(405);
    expect(reply.text).toBe('{"detail":"Method \\"POST\\" not allowed."}');
    expect(reply.headers['allow']).toBe(INSTANCE_ALLOW);
  });

  it('format=api answers the browsable page titled Image Instance', async () => {
    const reply = await fetchReply(`${detailUrl(service, 14225)}?format=api`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.text).toContain('<title>Image Instance – Django REST framework</title>');
    expect(reply.text).toContain('&quot;id&quot;: 14225');
  });

  it('an unknown format answers 404 JSON; a format suffix crashes retrieve (500), which takes no format', async () => {
    for (const url of [`${detailUrl(service, 14225)}?format=xml`, `${service.listUrl}14225.xml`]) {
      const reply = await fetchReply(url);
      expect([reply.status, reply.text]).toEqual([404, NOT_FOUND]);
    }
    const suffixed = await fetchReply(`${service.listUrl}14225.json`);
    expect(suffixed.status).toBe(500);
    expect(suffixed.text).toContain('<h1>Server Error (500)</h1>');
  });

  it('an Accept header no renderer satisfies answers 406', async () => {
    const reply = await fetchReply(detailUrl(service, 14225), { headers: { accept: 'image/png' } });
    expect(reply.status).toBe(406);
  });
});

describe('faults, as on the list', () => {
  it.each([
    [500, { rate500: 1 }, '<h1>Server Error (500)</h1>'],
    [502, { rate502: 1 }, '<title>502 Bad Gateway</title>'],
    [504, { rate504: 1 }, '<title>504 Gateway Time-out</title>'],
  ] as const)('%i comes as its HTML page', async (status, knob, marker) => {
    service.setFaults(knob);
    const reply = await fetchReply(detailUrl(service, 14225));
    expect(reply.status).toBe(status);
    expect(reply.text).toContain(marker);
    expect(service.stats.detailRequests).toBe(1);
  });

  it('429 comes with Retry-After and the view headers', async () => {
    service.setFaults({ rate429: 1, retryAfterSeconds: 3 });
    const reply = await fetchReply(detailUrl(service, 14225));
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('3');
    expect(reply.headers['allow']).toBe(INSTANCE_ALLOW);
    expect(reply.text).toBe('{"detail":"Request was throttled. Expected available in 3 seconds."}');
  });

  it('truncates a body and resets a connection', async () => {
    service.setFaults({ rateTruncate: 1 });
    const cut = await rawGet(service.url, '/api/images/14225/');
    expect(cut.bytes.subarray(0, 12).toString()).toBe('HTTP/1.1 200');
    expect(cut.bodyBytes).toBeGreaterThan(0);
    expect(cut.bodyBytes).toBeLessThan(cut.contentLength!);
    service.setFaults({ rateTruncate: 0, rateReset: 1 });
    expect((await rawGet(service.url, '/api/images/14225/')).bytes.length).toBe(0);
  });

  // A lower bound only: the knob must delay the answer; how fast anything is belongs in the benchmark.
  it('spends the page latency plus one record latency', async () => {
    service.setFaults({ pageLatencyMs: 60, recordLatencyMs: 60 });
    const started = performance.now();
    await fetchReply(detailUrl(service, 14225));
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('holds a worker, so list and image requests wait for each other', async () => {
    service.setFaults({ workers: 1, pageLatencyMs: 100 });
    const replies = await Promise.all([
      fetchReply(detailUrl(service, 14225)),
      fetchReply(`${service.listUrl}?limit=2`),
      fetchReply(detailUrl(service, 14228)),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(service.stats.workers.peakActive).toBe(1);
    expect(service.stats.workers.peakQueued).toBe(2);
  });

  it('numbers image requests with list requests for the fault plan', async () => {
    const seen: string[] = [];
    service.setFaults({ plan: ({ n, url }) => (seen.push(`${n} ${url}`), n % 2 === 0 ? '502' : undefined) });
    const first = await fetchReply(`${service.listUrl}?limit=1`);
    const second = await fetchReply(detailUrl(service, 14225));
    expect([first.status, second.status]).toEqual(Number(seen[0]!.split(' ')[0]) % 2 === 0 ? [502, 200] : [200, 502]);
    expect(seen.map((s) => s.split(' ')[1])).toEqual(['/api/images/?limit=1', '/api/images/14225/']);
  });
});

describe('mutations', () => {
  it('inserted records are served here with the bytes the list has for them; deleted ones answer 404', async () => {
    const faults = { insertRate: 1, insertCount: 2, deleteRate: 1, deleteCount: 2 };
    const target = await startService({ records: 150, seed: 6, faults });
    try {
      // Image requests are data requests too: they insert and delete as time passes.
      for (let i = 0; i < 3; i++) await fetchReply(detailUrl(target, target.dataset.idAt(0)));
      target.setFaults({ insertRate: 0, deleteRate: 0 });
      const inserted = target.dataset.insertedIds();
      const deleted = target.dataset.deletedIds();
      expect(inserted).toHaveLength(6);
      expect(deleted).toHaveLength(6);
      const listed = (await allPages(`${target.listUrl}?limit=1000`)).flatMap((p) => p.results);
      expect(listed).toHaveLength(150);
      const byId = new Map(listed.map((r) => [r.id as number, r]));
      for (const id of inserted.filter((x) => !deleted.includes(x))) {
        const reply = await fetchReply(detailUrl(target, id));
        expect(reply.status).toBe(200);
        expect(JSON.parse(reply.text)).toEqual(byId.get(id));
      }
      for (const id of deleted) {
        expect(byId.has(id)).toBe(false);
        expect((await fetchReply(detailUrl(target, id))).status).toBe(404);
      }
    } finally {
      await target.close();
    }
  });
});
