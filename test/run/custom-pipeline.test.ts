/** The library's stages compose into a custom pipeline: extract → transform → load, over real loopback HTTP. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dedupe,
  filterRows,
  normalise,
  paginate,
  startService,
  toArrowBatches,
  toCsv,
  toParquet,
  validate,
  tee,
  type RunningService,
} from '../../src/index.js';
import { expectedRow, expectRowsMatch } from '../helpers/expected-row.js';
import { readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let out: string;
beforeAll(async () => {
  service = await startService({ records: 800, seed: 61 });
  out = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(out);
});

describe('a custom pipeline from the exported stages', () => {
  it('pages, validates, normalises, dedupes, filters, and writes Parquet and CSV from one stream', async () => {
    const rows = filterRows((row) => row['map_type'] === 'T map')(
      dedupe(normalise(validate(paginate({ baseUrl: service.url, pageSize: 64, concurrency: 3 })))),
    );
    const [forParquet, forCsv] = tee(rows, 2);
    const [parquet, csv] = await Promise.all([
      toParquet(toArrowBatches(forParquet!), { path: join(out, 'images.parquet') }),
      toCsv(forCsv!, { path: join(out, 'images.csv') }),
    ]);
    const tMaps = [...service.servedRecords()].filter((r) => r['map_type'] === 'T map');
    expect(tMaps.length).toBeGreaterThan(20);
    expect([parquet.rows, csv.rows]).toEqual([tMaps.length, tMaps.length]);
    expectRowsMatch(await readParquetRows(out), new Map(tMaps.map((r) => [BigInt(r['id'] as number), expectedRow(r)])));
  });
});
