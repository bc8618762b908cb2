/**
 * Issue 23, case 1: reconciliation never proves more than the image list counts. A run that holds fewer distinct
 * records than the service counts is incomplete (exit 3), whatever the collections say: a collection the collections
 * list does not show, a `count` that grows during the pass, a collection's own list that leaves a record out. Real CLI
 * against a scripted service with the collection endpoints over loopback HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordsIn, startCollectionsServer, type CollectionsScript } from '../helpers/collections-server.js';
import { readManifest } from '../helpers/read-manifest.js';
import { readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';

let out: string;
let server: ScriptedServer | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await removeDir(out);
});

/** Collections 1, 2 and 3 of ten records each, their records interleaved in the image list as NeuroVault's are. */
const tenEach = (): Record<string, unknown>[] => {
  const [a, b, c] = [recordsIn(1, 10, 100), recordsIn(2, 10, 200), recordsIn(3, 10, 300)];
  return a.flatMap((r, i) => [r, b[i]!, c[i]!]);
};

/** Runs the CLI against the script, ten records a page, into `out`. */
async function snapshot(script: CollectionsScript): Promise<CliRun> {
  server = await startCollectionsServer(script);
  return runCli(['--base-url', server.origin, '--out', out, '--page-size', '10', '--retry-delay', '0.01', '--quiet']);
}

/** The ids written, ascending. */
async function writtenIds(): Promise<number[]> {
  return (await readParquetRows(out)).map((r) => Number(r['id'])).sort((a, b) => a - b);
}

describe('fewer distinct records than the service counts is incomplete, whatever the collections say', () => {
  it('two records counted in a collection the collections list does not show: exit 3, 2 missing', async () => {
    const hidden = recordsIn(9, 2, 900);
    const records = [...tenEach().slice(0, 28), ...hidden];
    const run = await snapshot({ records, listed: [1, 2, 3], unserved: [900, 901] });
    expect([run.code, run.stderr]).toEqual([3, '']);
    const manifest = await readManifest(out);
    expect(manifest).toMatchObject({ complete: false, expected: 30, received: 28, missing: 2, records_written: 28 });
    expect(run.stdout).toContain('28 written, 0 rejected; the service counts 30: 2 missing');
    expect(await writtenIds()).toEqual(
      records
        .slice(0, 28)
        .map((r) => r['id'] as number)
        .sort((a, b) => a - b),
    );
  });

  it('a count that grows from 30 to 34 during the pass while 30 records are served: exit 3, 4 missing', async () => {
    const records = tenEach();
    const run = await snapshot({ records, count: (offset) => (offset === 0 ? 30 : 34) });
    expect([run.code, run.stderr]).toEqual([3, '']);
    const manifest = await readManifest(out);
    expect(manifest).toMatchObject({ complete: false, expected: 34, received: 30, missing: 4, records_written: 30 });
    expect(run.stdout).toContain('the service counted 30 at the start and 34 at the end: 4 missing');
  });

  it("a record the image list counts but skips, which its collection's own list leaves out: exit 3", async () => {
    const records = tenEach();
    const run = await snapshot({ records, unserved: [205], omitted: [205] });
    expect([run.code, run.stderr]).toEqual([3, '']);
    const manifest = await readManifest(out);
    // Collection 2 came up short and was read through its own list, which served all its count named.
    expect(manifest.completeness.reconciled).toMatchObject([{ id: 2, reason: 'short', count: 9, received: 9 }]);
    expect(manifest).toMatchObject({ complete: false, expected: 30, received: 29, missing: 1, records_written: 29 });
    expect(await writtenIds()).not.toContain(205);
  });
});
