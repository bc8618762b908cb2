/**
 * The DuckDB peer as a program (see duckdb-peer-job.ts); the bench measures it from process start to
 * the file written. It prints one JSON line: `{ count, records, pages, file }`.
 *
 *   node dist/bench/duckdb-peer.js --base-url URL --out DIR --format parquet --concurrency 4 --page-size 1000
 */
import { parseArgs } from 'node:util';
import { PEER_FORMATS, type PeerFormat, runDuckDBPeer } from './duckdb-peer-job.js';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    out: { type: 'string' },
    format: { type: 'string', default: 'parquet' },
    concurrency: { type: 'string', default: '4' },
    'page-size': { type: 'string', default: '1000' },
  },
});
const { 'base-url': baseUrl, out, format } = values;
const concurrency = Number(values.concurrency);
const pageSize = Number(values['page-size']);
const formats: readonly string[] = PEER_FORMATS;
if (baseUrl === undefined || out === undefined || !formats.includes(format) || !(concurrency >= 1 && pageSize >= 1)) {
  const usage = 'duckdb-peer --base-url URL --out DIR [--format parquet|csv] [--concurrency N] [--page-size N]';
  throw new Error(`peer: usage: ${usage}`);
}

const result = await runDuckDBPeer({ baseUrl, out, format: format as PeerFormat, concurrency, pageSize });
process.stdout.write(`${JSON.stringify(result)}\n`);
