/**
 * A run given an AbortSignal, from the library over real loopback HTTP: aborted while it writes its files, or after
 * they are written and before the manifest's commit, it rejects with the signal's reason, publishes nothing and keeps
 * its staging, and the same call then resumes it without fetching a page of the list again. Aborted before its report
 * compares the run with the snapshot before, the comparison (a diff of every changed record) is not made.
 */
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  reportTap,
  runSnapshot,
  startService,
  STAGING_DIR,
  type RunTap,
  type RunningService,
} from '../../src/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService({ records: 3_000, seed: 7 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

/** A tap that aborts `aborter` on the first batch of rows it sees, or once the manifest is built; counts batches. */
function abortingTap(aborter: AbortController, when: 'rows' | 'beforeCommit', seen: { batches: number }): RunTap {
  const abort = () => aborter.abort(new Error(`stopped at ${when}`));
  return {
    open: async () => ({
      rows: async (batches) => {
        for await (const _ of batches) if (++seen.batches === 1 && when === 'rows') abort();
      },
      beforeCommit: async () => {
        if (when === 'beforeCommit') abort();
        return [];
      },
    }),
  };
}

describe('a run aborted before its commit', () => {
  it.each(['rows', 'beforeCommit'] as const)(
    'aborted at %s: rejects with the reason, publishes nothing, and the same call resumes',
    async (when) => {
      const outDir = join(dir, when);
      const aborter = new AbortController();
      const seen = { batches: 0 };
      const options = { baseUrl: service.url, outDir, formats: ['parquet', 'csv'] as const, pageSize: 100 };
      const taps = [abortingTap(aborter, when, seen)];
      const failed = await runSnapshot({ ...options, taps, signal: aborter.signal }).catch((error: unknown) => error);
      expect(failed).toBe(aborter.signal.reason);
      // aborted on the first of the three batches, the write stops before the second
      expect(seen.batches).toBe(when === 'rows' ? 1 : 3);
      expect(await readdir(outDir)).toEqual([STAGING_DIR]);
      const listRequests = service.stats.listRequests;
      const resumed = await runSnapshot(options);
      expect(resumed.manifest.records_written).toBe(3_000);
      expect(service.stats.listRequests - listRequests).toBe(0);
      expect((await readdir(outDir)).sort()).toEqual([
        'collections.csv',
        'collections.parquet',
        'images.csv',
        'images.parquet',
        'manifest.json',
      ]);
    },
  );
});

describe('a --snapshot run aborted before its report compares it with the snapshot before', () => {
  it('rejects with the reason without making the comparison', async () => {
    const outDir = join(dir, 'drift');
    const finish = { maxMissing: 0 }; // points latest at it: the snapshot the next run compares with
    const first = await runSnapshot({ baseUrl: service.url, outDir, snapshot: true, taps: [reportTap()], finish });
    expect(first.manifest.complete).toBe(true);
    const edited = service.change({ kind: 'edit', collections: 5, seed: 3 });
    expect(edited.records.length).toBeGreaterThan(0); // records whose rows the comparison would read and diff
    const aborter = new AbortController();
    const seen = { batches: 0 };
    let afterReport = false;
    const after: RunTap = { open: async () => ({ beforeCommit: async () => ((afterReport = true), []) }) };
    const taps = [abortingTap(aborter, 'beforeCommit', seen), reportTap(), after];
    const options = { baseUrl: service.url, outDir, snapshot: true, full: true, taps, signal: aborter.signal };
    const failed = await runSnapshot(options).catch((error: unknown) => error);
    expect(failed).toBe(aborter.signal.reason);
    expect(afterReport).toBe(false); // the report stopped in its comparison, before the taps after it
    expect((await readdir(outDir)).sort()).toEqual([STAGING_DIR, basename(first.dataDir), 'latest'].sort());
  });
});
