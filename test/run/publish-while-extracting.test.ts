/**
 * Publishing while extracting (in-order-feed.ts) must give the very files that publishing afterwards from the
 * staging folder gives. Each case runs the same service twice over loopback HTTP, once each way, and compares every
 * file byte for byte; the manifest says which way each run went, so a case cannot pass by taking the same path twice.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/run/manifest.js';
import { runSnapshot, type SnapshotOptions } from '../../src/run/run-snapshot.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/service/index.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { expectedRowsOf, readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';

const dirs: string[] = [];
const services: RunningService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close().catch(() => undefined)));
  await Promise.all(dirs.splice(0).map(removeDir));
});

type Start = (port: number) => Promise<RunningService>;

/** Runs a snapshot of a fresh service made by `start` on `port` (0: any), then closes it; returns the data folder's files. */
async function snapshotOf(start: Start, port: number, options: SnapshotOptions) {
  const service = await start(port);
  services.push(service);
  const outDir = await tempDir();
  dirs.push(outDir);
  const result = await runSnapshot({ baseUrl: service.url, outDir, snapshot: true, formats: ['parquet', 'arrow', 'csv'], pageSize: 100, concurrency: 1, ...options });
  const files = new Map<string, Buffer>();
  for (const name of (await readdir(result.dataDir)).sort()) if (name !== 'manifest.json') files.set(name, await readFile(join(result.dataDir, name)));
  await service.close();
  return { service, result, files, dataDir: result.dataDir };
}

/** The same service twice on the same port (links hold the port), written while extracting and afterwards. */
async function bothWays(start: Start, options: SnapshotOptions = {}) {
  const live = await snapshotOf(start, 0, options);
  const after = await snapshotOf(start, Number(new URL(live.service.url).port), { ...options, publishWhileExtracting: false });
  expect(after.result.manifest.published_while_extracting).toBe(false);
  expect([...live.files.keys()]).toEqual([...after.files.keys()]);
  for (const [name, bytes] of live.files) expect(bytes.equals(after.files.get(name)!), `${name} differs`).toBe(true);
  expect(comparable(live.result.manifest)).toEqual(comparable(after.result.manifest));
  return live;
}

/** A manifest without its times and the path taken. */
function comparable(manifest: Manifest) {
  const { finished_at: _a, started_at: _b, published_while_extracting: _c, ...rest } = manifest;
  return rest;
}

const generated = (options: ServiceOptions): Start => (port) => startService({ seed: 7, port, ...options });

describe('publishing while extracting', () => {
  it('a list nearly in id order (2% of rows up to 150 places late) is written while paging, the same bytes as afterwards', async () => {
    const live = await bothWays(generated({ records: 4_000 }));
    expect(live.result.manifest.published_while_extracting).toBe(true);
    expect(live.result.manifest.records_written).toBe(4_000);
    expectRowsMatch(await readParquetRows(live.dataDir), expectedRowsOf(live.service, live.service.servedIds()));
  });

  it('with concurrency 4 and pages of 1000 as well', async () => {
    const live = await bothWays(generated({ records: 6_000, seed: 8 }), { concurrency: 4, pageSize: 1000 });
    expect(live.result.manifest.published_while_extracting).toBe(true);
  });

  it('records far out of id order (real records spread through 12,000 generated ones, beyond the 1,000-record window) make it write afterwards instead', async () => {
    const live = await bothWays((port) => startFixtureService({ records: 12_000, seed: 3, port }));
    expect(live.result.manifest.published_while_extracting).toBe(false);
    expectRowsMatch(await readParquetRows(live.dataDir), expectedRowsOf(live.service, live.service.servedIds()));
  });

  it('repeated records (rows inserted before the cursor) are dropped the same way: first occurrence kept', async () => {
    const live = await bothWays(generated({ records: 3_000, faults: { insertRate: 0.2, insertCount: 2, faultSeed: 4 } }));
    expect(live.result.manifest.duplicates_dropped).toBeGreaterThan(0);
  });

  it('rejects (records breaking the schema) come out the same, after the valid rows', async () => {
    const records = [...fixtureRecords];
    records[3] = { ...records[3], add_date: 'yesterday' };
    records[10] = { ...records[10], file_size: 'big' };
    records[20] = { ...records[20], is_valid: 'yes' };
    const live = await bothWays((port) => startService({ data: records, records: 0, port }));
    expect(live.result.manifest.published_while_extracting).toBe(true);
    expect(live.result.manifest.rejects).toBe(3);
    expect(live.files.has('rejects.ndjson')).toBe(true);
  });

  it('a later pass that adds records out of order makes it write afterwards', async () => {
    const live = await bothWays(generated({ records: 12_000, faults: { unstableOrderRate: 0.3, unstableOrderMode: 'rotate', faultSeed: 2 } }));
    expect(live.result.manifest.passes.length).toBeGreaterThan(1);
    expect(live.result.manifest.published_while_extracting).toBe(false);
  });
});
