/**
 * The floor: the least any client must do to read the list. It pages as img-etl does (see
 * fetch-all-pages.ts) and only `JSON.parse`s each body. It prints one JSON line: `{ count, records, pages }`.
 *
 *   node dist/bench/floor-client.js --base-url URL --concurrency 4 --page-size 1000
 */
import { parseArgs } from 'node:util';
import { fetchAllPages } from './fetch-all-pages.js';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'page-size': { type: 'string', default: '100' },
  },
});
const baseUrl = values['base-url'];
const concurrency = Number(values.concurrency);
const pageSize = Number(values['page-size']);
if (baseUrl === undefined || !(concurrency >= 1) || !(pageSize >= 1)) {
  throw new Error('floor: usage: floor-client --base-url URL [--concurrency N] [--page-size N]');
}

const read = await fetchAllPages({ baseUrl, concurrency, pageSize, userAgent: 'img-etl-floor' }, () => undefined);
process.stdout.write(`${JSON.stringify(read)}\n`);
