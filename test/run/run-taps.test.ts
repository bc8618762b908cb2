/**
 * Taps on a run (src/run/run-tap.ts), from the library over real loopback HTTP: a user's own tap sees every row and
 * Arrow batch beside the writers and adds a file that is listed in the manifest and published with the data; the
 * report is a tap too, and a run without it writes none of its files.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportTap, runSnapshot, startService, type RunTap, type RunningService } from '../../src/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService({ records: 120, seed: 7 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

/** A user's tap: counts the rows and Arrow rows it sees, and the files the manifest lists before its commit. */
function countingTap(seen: { rows: number; arrowRows: number; manifestFiles: string[] }): RunTap {
  return {
    async open() {
      return {
        rows: async (batches) => {
          for await (const batch of batches) seen.rows += batch.rows.length;
        },
        arrow: async (batches) => {
          for await (const batch of batches) seen.arrowRows += batch.numRows;
        },
        beforeCommit: async (manifest) => {
          seen.manifestFiles = manifest.files.map((f) => f.name);
          return [];
        },
      };
    },
  };
}

describe('runSnapshot with taps', () => {
  it("feeds a user's tap every row and Arrow batch beside the writers, and shows it the manifest", async () => {
    const seen = { rows: 0, arrowRows: 0, manifestFiles: [] as string[] };
    const result = await runSnapshot({ baseUrl: service.url, outDir: join(dir, 'own'), taps: [countingTap(seen)] });
    expect(result.manifest.records_written).toBe(120);
    expect([seen.rows, seen.arrowRows]).toEqual([120, 120]);
    expect(seen.manifestFiles).toEqual(['images.parquet', 'collections.parquet']);
  });

  it("fails the run with a tap's own error, publishing nothing", async () => {
    const out = join(dir, 'failing');
    const failing: RunTap = {
      open: async () => ({
        rows: async (batches) => {
          for await (const _ of batches) throw new Error('tap: no room');
        },
      }),
    };
    await expect(runSnapshot({ baseUrl: service.url, outDir: out, taps: [failing] })).rejects.toThrow('tap: no room');
    expect((await readdir(out)).filter((n) => !n.startsWith('.'))).toEqual([]);
  });

  it('writes the report and the index with reportTap, and none of them without it', async () => {
    const reported = await runSnapshot({
      baseUrl: service.url,
      outDir: join(dir, 'r'),
      snapshot: true,
      taps: [reportTap()],
    });
    const plain = await runSnapshot({ baseUrl: service.url, outDir: join(dir, 'p'), snapshot: true });
    const reportFiles = ['images.index', 'load.py', 'load.sql', 'report.html', 'report.json'];
    for (const name of reportFiles) expect(reported.manifest.files.map((f) => f.name)).toContain(name);
    expect((await readdir(reported.dataDir)).filter((n) => reportFiles.includes(n)).sort()).toEqual(reportFiles);
    expect((await readdir(plain.dataDir)).filter((n) => reportFiles.includes(n))).toEqual([]);
    // normalisation.json is the runner's, as every --snapshot run's: the next run carries its counts over
    const runner = ['images.parquet', 'normalisation.json', 'collections.parquet'];
    expect(plain.manifest.files.map((f) => f.name)).toEqual(runner);
  });
});
