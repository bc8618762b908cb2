/**
 * img-etl's own stages streamed in one pass, as a custom pipeline of the library (README, Library): paginate →
 * validate → writeTable to one format. Each page is parsed once and its rows written as they come: nothing staged, no
 * id order, no completeness check, no collections table. That is not a safe way to take a snapshot (a record the list
 * moves between pages can be lost), but it is the least a design built from these stages could cost: the bench runs it
 * as information beside img-etl and the peer. Prints one JSON line: `{ records, written }`.
 *
 *   node dist/bench/stream-client.js --base-url URL --to parquet --out DIR [--concurrency 4] [--page-size N]
 */
import { parseArgs } from 'node:util';
import { FORMATS, paginate, validate, writeTable, type Format } from 'img-etl';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    to: { type: 'string' },
    out: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'page-size': { type: 'string' }, // default: img-etl's
  },
});
const { 'base-url': baseUrl, to, out } = values;
const concurrency = Number(values.concurrency);
const pageSize = values['page-size'] === undefined ? undefined : Number(values['page-size']);
if (
  baseUrl === undefined ||
  out === undefined ||
  !FORMATS.includes(to as Format) ||
  !(concurrency >= 1) ||
  !(pageSize === undefined || pageSize >= 1)
) {
  throw new Error(
    'stream: usage: stream-client --base-url URL --to FORMAT --out DIR [--concurrency N] [--page-size N]',
  );
}

let records = 0;
const pages = paginate({ baseUrl, concurrency, pageSize });
const counted = async function* () {
  for await (const page of pages) {
    records += page.records.length;
    yield page;
  }
};
const written = await writeTable(validate(counted()), { outDir: out, formats: [to as Format], metadata: {} });
process.stdout.write(`${JSON.stringify({ records, written: written.written })}\n`);
