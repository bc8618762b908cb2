/** DRF LimitOffsetPagination rules, observed over HTTP against the bundled service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../../src/service/index.js';
import { fetchReply, getPage } from '../http.js';

let service: RunningService;
const COUNT = 2500;

beforeAll(async () => {
  service = await startService({ records: COUNT, seed: 3 });
});
afterAll(() => service.close());

function offsetOf(link: string | null): string | null {
  return link === null ? null : new URL(link).searchParams.get('offset');
}
function limitOf(link: string | null): string | null {
  return link === null ? null : new URL(link).searchParams.get('limit');
}

describe('limit', () => {
  it('defaults to 100 when missing', async () => {
    const page = await getPage(service.listUrl);
    expect(page.results).toHaveLength(100);
    expect(page.next).toBe(`${service.listUrl}?limit=100&offset=100`);
  });

  it('is silently capped at 1000', async () => {
    const page = await getPage(`${service.listUrl}?limit=5000`);
    expect(page.results).toHaveLength(1000);
    expect(limitOf(page.next)).toBe('1000');
  });

  it.each([
    ['50', 50],
    ['1000', 1000],
    ['1001', 1000],
    ['99999999999999999999999', 1000],
    ['0', 100],
    ['-5', 100],
    ['-0', 100],
    ['abc', 100],
    ['1.5', 100],
    ['1e3', 100],
    ['', 100],
    ['0x10', 100],
    ['%2010%20', 10],
    ['+20', 20],
    ['%2B20', 20],
    ['%09%0A30%0D', 30],
    ['1_0', 10],
    ['_10', 100],
    ['10_', 100],
    ['1__0', 100],
    ['%D9%A3', 3],
    ['%EF%BC%91%EF%BC%92', 12],
    ['1%202', 100],
  ])('limit=%s means %i', async (raw, expected) => {
    const page = await getPage(`${service.listUrl}?limit=${raw}`);
    expect(page.results).toHaveLength(expected);
    expect(limitOf(page.next)).toBe(String(expected));
  });
});

describe('offset', () => {
  it('starts results at that zero-based row', async () => {
    const page = await getPage(`${service.listUrl}?limit=5&offset=123`);
    expect(page.results.map((r) => r.id)).toEqual([123, 124, 125, 126, 127].map((i) => service.dataset.idAt(i)));
  });

  it.each([
    ['-1', 0],
    ['abc', 0],
    ['1.5', 0],
    ['1e2', 0],
    ['', 0],
    ['%207%20', 7],
    ['1_0', 10],
  ])('offset=%s means %i', async (raw, expected) => {
    const page = await getPage(`${service.listUrl}?limit=3&offset=${raw}`);
    expect(page.results[0]?.id).toBe(service.dataset.idAt(expected));
  });
});

describe('next and previous', () => {
  // count 2500, limit 100: [offset, results, next offset, previous offset ('' = link without offset)]
  it.each([
    [0, 100, '100', null],
    [50, 100, '150', ''],
    [100, 100, '200', ''],
    [101, 100, '201', '1'],
    [1000, 100, '1100', '900'],
    [2399, 100, '2499', '2299'],
    [2400, 100, null, '2300'],
    [2450, 50, null, '2350'],
    [2499, 1, null, '2399'],
    [2500, 0, null, '2400'],
    [9000, 0, null, '8900'],
  ])('at offset %i: %i results, next offset %s, previous offset %s', async (offset, results, next, previous) => {
    const page = await getPage(`${service.listUrl}?offset=${offset}`);
    expect(page.count).toBe(COUNT);
    expect(page.results).toHaveLength(results);
    expect(offsetOf(page.next)).toBe(next);
    if (previous === null) expect(page.previous).toBeNull();
    else if (previous === '') expect(page.previous).toBe(`${service.listUrl}?limit=100`);
    else expect(offsetOf(page.previous)).toBe(previous);
  });

  it('drops offset from previous when offset - limit <= 0, keeping the other parameters', async () => {
    const page = await getPage(`${service.listUrl}?format=json&offset=30&limit=30`);
    expect(page.previous).toBe(`${service.listUrl}?format=json&limit=30`);
  });

  it('past the end gives no results and next null, previous by the same rule', async () => {
    const page = await getPage(`${service.listUrl}?offset=100000000000000000000&limit=10`);
    expect(page.results).toEqual([]);
    expect(page.next).toBeNull();
    expect(page.previous).toBe(`${service.listUrl}?limit=10&offset=99999999999999999990`);
  });

  it('builds absolute links on the Host header', async () => {
    const page = await getPage(`${service.listUrl}?offset=200`, { host: 'images.example:8080' });
    expect(page.next).toBe('http://images.example:8080/api/images/?limit=100&offset=300');
    expect(page.previous).toBe('http://images.example:8080/api/images/?limit=100&offset=100');
  });

  it('sorts link parameters and keeps format and every other parameter', async () => {
    const page = await getPage(`${service.listUrl}?zeta=z&offset=200&format=json&limit=10&alpha=a`);
    expect(page.next).toBe(`${service.listUrl}?alpha=a&format=json&limit=10&offset=210&zeta=z`);
    expect(page.previous).toBe(`${service.listUrl}?alpha=a&format=json&limit=10&offset=190&zeta=z`);
  });

  it('writes the effective limit into links, not the requested one', async () => {
    const page = await getPage(`${service.listUrl}?limit=abc&offset=100`);
    expect(page.next).toBe(`${service.listUrl}?limit=100&offset=200`);
  });

  it('encodes link parameters like urlencode with quote_plus and keeps blank values', async () => {
    const page = await getPage(`${service.listUrl}?q=a%20b+c&x=%C3%A9/~&flag&limit=5`);
    expect(page.next).toBe(`${service.listUrl}?flag=&limit=5&offset=5&q=a+b+c&x=%C3%A9%2F~`);
  });

  it('rebuilds links on the path that was requested (format suffix)', async () => {
    const page = await getPage(`${service.url}/api/images.json?limit=10`);
    expect(page.next).toBe(`${service.url}/api/images.json?limit=10&offset=10`);
  });
});

describe('repeated parameters', () => {
  it('take their last value for limit and offset', async () => {
    const page = await getPage(`${service.listUrl}?limit=5&limit=7&offset=10&offset=20`);
    expect(page.results).toHaveLength(7);
    expect(page.results[0]?.id).toBe(service.dataset.idAt(20));
    expect(page.next).toBe(`${service.listUrl}?limit=7&offset=27`);
  });

  it('keep all their values, in order, for other parameters in links', async () => {
    const page = await getPage(`${service.listUrl}?tag=b&tag=a&limit=5`);
    expect(page.next).toBe(`${service.listUrl}?limit=5&offset=5&tag=b&tag=a`);
  });

  it('take the last format', async () => {
    const reply = await fetchReply(`${service.listUrl}?format=api&format=json&limit=1`);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('empty list', () => {
  it('has count 0, no results and no links (a positive offset still gets a previous link)', async () => {
    const empty = await startService({ records: 0 });
    try {
      expect(await getPage(empty.listUrl)).toEqual({ count: 0, next: null, previous: null, results: [] });
      expect(await getPage(`${empty.listUrl}?offset=5`)).toEqual({
        count: 0,
        next: null,
        previous: `${empty.listUrl}?limit=100`,
        results: [],
      });
    } finally {
      await empty.close();
    }
  });
});
