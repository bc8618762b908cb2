/**
 * Issue 23, case 1: reconciliation never proves more than the image list counts. A run that holds fewer distinct
 * records than the service counts is incomplete (exit 3), whatever the collections say: a collection the collections
 * list does not show, a `count` that grows during the pass, a collection's own list that leaves a record out. Real CLI
 * against a scripted service with the collection endpoints over loopback HTTP.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordsIn, startCollectionsServer, type CollectionsScript } from '../../helpers/collections-server.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere, type CliRun } from '../../helpers/run-cli.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';

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
  return runCliHere([
    '--base-url',
    server.origin,
    '--out',
    out,
    '--page-size',
    '10',
    '--retry-delay',
    '0.01',
    '--quiet',
  ]);
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

/** The three scripts above, with the image list's `count` at the end of the pass and the distinct records held. */
const SHORT_RUNS: { name: string; script: () => CollectionsScript; count: number; held: number }[] = [
  {
    name: 'a collection the collections list does not show',
    script: () => ({
      records: [...tenEach().slice(0, 28), ...recordsIn(9, 2, 900)],
      listed: [1, 2, 3],
      unserved: [900, 901],
    }),
    count: 30,
    held: 28,
  },
  {
    name: 'a count that grows from 30 to 34',
    script: () => ({ records: tenEach(), count: (offset) => (offset === 0 ? 30 : 34) }),
    count: 34,
    held: 30,
  },
  {
    name: "a record a collection's own list leaves out",
    script: () => ({ records: tenEach(), unserved: [205], omitted: [205] }),
    count: 30,
    held: 29,
  },
];

/** "0 missing" as a number of its own (not the end of "20 missing"). */
const NONE_MISSING = /(?<!\d)0 missing/;

describe('every line that states the proof gives the missing records the records line gives', () => {
  it.each(SHORT_RUNS)('$name: progress, summary and manifest say which count was short', async (c) => {
    const missing = c.count - c.held;
    server = await startCollectionsServer(c.script());
    const run = await runCliHere([
      '--base-url',
      server.origin,
      '--out',
      out,
      '--page-size',
      '10',
      '--retry-delay',
      '0.01',
    ]);
    expect(run.code).toBe(3);
    const why =
      `${missing} missing (the image list counts ${c.count} at the end, ` +
      `but the pass and the collections read account for ${c.held})`;
    const reconciled = run.stderr.split('\n').filter((line) => line.startsWith('img-etl: reconciled '));
    expect(reconciled).toHaveLength(1);
    expect(reconciled[0]).toMatch(/^img-etl: reconciled \d+ collections?: 0 records added, /);
    expect(reconciled[0]!.endsWith(`: 0 records added, ${why}`)).toBe(true);
    expect(run.stdout).toContain(`  proof     one pass over the images, then `);
    expect(run.stdout).toContain(`: +0 records, ${why}; collections list 3 of 3, read before and after\n`);
    expect(run.stderr).not.toMatch(NONE_MISSING);
    expect(run.stdout).not.toMatch(NONE_MISSING);
    const manifest = await readManifest(out);
    expect(manifest.missing).toBe(missing);
    expect(manifest.completeness.reconciliation).toMatchObject({ unserved: 0, missing });
    expect(JSON.stringify(manifest.completeness)).not.toMatch(/"missing":0\b/);
    // The report page says the proof's missing records in words (its JSON stays in report.json and the manifest).
    const page = join(out, 'page.html');
    expect((await runCliHere(['report', out, '--out', page])).code).toBe(0);
    const html = await readFile(page, 'utf8');
    const stillMissing = /<th scope="row">still missing<\/th><td>([^<]*)<\/td>/.exec(html)?.[1];
    expect(stillMissing).toBe(`${missing} ${missing === 1 ? 'record' : 'records'} the proof cannot account for`);
    expect(html).not.toContain('&#34;missing&#34;');
  });
});
