/**
 * A snapshot does not depend on the order the list serves its records in: the same records served in id order and
 * in the real list's order (runs of ascending ids, shuffled, a few rows out of place) give the same bytes in every
 * data file and the same images.index. Real CLI against the bundled service over loopback HTTP, on the same origin.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListOrder } from '../../../src/service/basics/real-order.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) await removeDir(d);
});

const FILES = ['images.parquet', 'images.csv', 'collections.parquet', 'collections.csv', 'images.index'];

/** Snapshots the fixture records and 3,000 generated ones served in `listOrder` on `port`; returns the folder. */
async function snapshotServedIn(
  listOrder: ListOrder,
  port = 0,
): Promise<{ folder: string; port: number; ids: number[] }> {
  const service = await startFixtureService({ records: 3000, seed: 12, listOrder, port });
  const ids = service.servedIds();
  try {
    const out = await tempDir();
    dirs.push(out);
    const args = ['--snapshot', '--to', 'parquet,csv', '--page-size', '100', '--base-url', service.url, '--out', out];
    const run = await runCliHere([...args, '--quiet']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    return { folder: join(out, 'latest'), port: service.port, ids };
  } finally {
    await service.close();
  }
}

describe('a snapshot whatever the order the list is served in', () => {
  it('writes the same bytes from a list in the real order as from the same list in id order', async () => {
    const byId = await snapshotServedIn('id');
    // The same origin, so that the records' URLs are the same bytes.
    const real = await snapshotServedIn('real', byId.port);
    expect(real.ids).not.toEqual(byId.ids);
    expect([...real.ids].sort()).toEqual([...byId.ids].sort());
    for (const file of FILES) {
      // Buffer.equals, not toEqual: vitest compares a Buffer element by element.
      const same = (await readFile(join(real.folder, file))).equals(await readFile(join(byId.folder, file)));
      expect(same, file).toBe(true);
    }
  });
});
