import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, tempDir } from '../helpers/readers.js';
import { countRowsAndIds, readFunction } from './duckdb-count.js';
import { PEER_FORMATS, runDuckDBPeer } from './duckdb-peer-job.js';
import { fetchAllPages } from './fetch-all-pages.js';

// The DuckDB peer is what img-etl is measured against: a fast peer that drops or repeats records would
// make every CPU-bound target meaningless, so its files are read back and compared with what was served.
describe('the DuckDB peer of the bench', () => {
  let service: RunningService;
  let served: Map<number, Record<string, unknown>>;

  beforeAll(async () => {
    service = await startFixtureService({ records: 2_441, seed: 7 });
    served = new Map([...service.servedRecords()].map((r) => [r['id'] as number, r]));
  });
  afterAll(() => service.close());

  it.each(PEER_FORMATS)('writes every served record once to %s, as served, and leaves no NDJSON', async (format) => {
    const out = await tempDir();
    try {
      const result = await runDuckDBPeer({ baseUrl: service.url, concurrency: 4, pageSize: 1000, out, format });
      expect(result).toMatchObject({ count: served.size, records: served.size, pages: 3 });
      expect(await readdir(out)).toEqual([`images.${format}`]);
      expect(await countRowsAndIds(result.file, format)).toEqual({ rows: served.size, ids: served.size });
      const db = await openDuckDB();
      const columns = 'id::DOUBLE AS id, name, collection_id::DOUBLE AS collection_id, url';
      const rows = await query(db, `SELECT ${columns} FROM ${readFunction(result.file, format)} ORDER BY id`);
      expect(rows.map((r) => r['id'])).toEqual([...served.keys()].sort((a, b) => a - b));
      for (const row of rows) {
        const record = served.get(row['id'] as number) as Record<string, unknown>;
        const fields = ['name', 'collection_id', 'url'];
        expect(fields.map((f) => row[f])).toEqual(fields.map((f) => record[f]));
      }
      // The CSV peer writes a header line (`HEADER true`), as img-etl does: the first line names the columns.
      if (format === 'csv') {
        const header = (await readFile(result.file, 'utf8')).slice(0, 4096).split('\n')[0]?.split(',');
        expect(header).toEqual(expect.arrayContaining(['id', 'name', 'collection_id', 'url']));
      }
    } finally {
      await removeDir(out);
    }
  });

  it('pages by the page size the service applied, not the one asked for', async () => {
    const limits: number[] = [];
    const options = { baseUrl: service.url, concurrency: 3, pageSize: 5_000, userAgent: 'test' };
    const read = await fetchAllPages(options, (page) => void limits.push(page.results.length));
    // The service caps the limit at 1000: 2,500 records are three pages, not one of 5,000.
    expect(read).toEqual({ count: served.size, records: served.size, pages: 3 });
    expect(limits.sort((a, b) => b - a)).toEqual([1000, 1000, served.size - 2000]);
  });
});
