/**
 * The floor: the least any client must do to read the list. It pages like img-etl (the first page
 * alone for `count`, then the rest `--concurrency` at a time over undici keep-alive connections,
 * advancing by the page size the server applied) and only `JSON.parse`s each body. It prints one
 * JSON line: `{ count, records, pages }`.
 *
 *   node dist/test/bench/floor-client.js --base-url URL --concurrency 4 --page-size 1000
 */
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

interface Page {
  count: number;
  next: string | null;
  results: unknown[];
}

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'page-size': { type: 'string', default: '100' },
  },
});
const base = values['base-url'];
const concurrency = Number(values.concurrency);
const pageSize = Number(values['page-size']);
if (base === undefined || !(concurrency >= 1) || !(pageSize >= 1)) {
  throw new Error('floor: usage: floor-client --base-url URL [--concurrency N] [--page-size N]');
}

const listUrl = new URL('api/images/', base.endsWith('/') ? base : `${base}/`);
// The same connection settings and headers as img-etl's HttpClient.
const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
const headers = { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'img-etl-floor' };

async function getPage(limit: number, offset: number): Promise<Page> {
  const url = new URL(listUrl);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  const response = await request(url, { dispatcher: agent, method: 'GET', headers });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`floor: GET ${url.href} returned ${response.statusCode}`);
  return JSON.parse(text) as Page;
}

const first = await getPage(pageSize, 0);
const applied = first.next === null ? pageSize : Number(new URL(first.next).searchParams.get('limit') ?? pageSize);
let records = first.results.length;
let pages = 1;
let nextOffset = applied;
async function lane(): Promise<void> {
  while (nextOffset < first.count) {
    const offset = nextOffset;
    nextOffset += applied;
    const page = await getPage(applied, offset);
    records += page.results.length;
    pages++;
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
await agent.close();
process.stdout.write(`${JSON.stringify({ count: first.count, records, pages })}\n`);
