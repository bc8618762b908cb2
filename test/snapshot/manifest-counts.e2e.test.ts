/**
 * A snapshot whose manifest gives 3,000 records (records_written, received, expected
 * and the service's counts) while its images.parquet, and the files list's rows, hold 30. `report`, `diff` and `files`
 * end with exit 1 and one line naming the manifest, the count it gives and the rows of the file; a `--snapshot` run
 * whose drift meets it notes it on the page and publishes.
 */
import { readFile, readlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/report-data.js';
import { startService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli, runCliHere } from '../helpers/run-cli.js';

let dir: string;
let base: string;
let folders: string[];

/** One `--snapshot` run of 30 records served with `seed` (the same ids, other values for another seed). */
async function snapshot(seed: number): Promise<void> {
  const service = await startService({ records: 30, seed });
  try {
    const run = await runCliHere([
      '--base-url',
      service.url,
      '--out',
      base,
      '--snapshot',
      '--to',
      'parquet',
      '--quiet',
    ]);
    expect([run.code, run.stderr]).toEqual([0, '']);
  } finally {
    await service.close();
  }
}

beforeAll(async () => {
  dir = await tempDir();
  base = join(dir, 'snaps');
  await snapshot(1);
  const first = join(base, await readlink(join(base, 'latest')));
  const path = join(first, 'manifest.json');
  const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  const files = manifest['files'] as { name: string; rows: number }[];
  expect(files.find((f) => f.name === 'images.parquet')?.rows).toBe(30);
  for (const key of ['records_written', 'received', 'expected', 'count_at_start', 'count_at_end']) manifest[key] = 3000;
  await writeFile(path, JSON.stringify(manifest, null, 2));
  await snapshot(2);
  folders = [first, join(base, await readlink(join(base, 'latest')))];
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

describe('a manifest whose record counts are not its images file rows', () => {
  const says = 'gives records_written 3000, and 30 rows for images.parquet';

  it('is a note on the page of the next --snapshot run, which publishes', async () => {
    expect(folders[1]).not.toBe(folders[0]);
    const report = JSON.parse(await readFile(join(folders[1]!, 'report.json'), 'utf8')) as ReportData;
    expect(report.drift).toBeNull();
    expect(report.drift_note).toContain(`no comparison with ${basename(folders[0]!)}: `);
    expect(report.drift_note).toContain(`${join(folders[0]!, 'manifest.json')} ${says}`);
  });

  for (const command of ['report', 'diff', 'files']) {
    it(`makes ${command} exit 1 with one line naming the manifest, its count and the file's rows`, async () => {
      const out = join(dir, `out-${command}`);
      const args = {
        report: ['report', folders[0]!, '--out', join(dir, 'r.html')],
        diff: ['diff', folders[0]!, folders[1]!, '--out', out],
        files: ['files', folders[0]!, '--out', out, '--quiet'],
      }[command]!;
      const run = await runCli(args, { timeoutMs: 30_000 }); // files would fetch from a service gone
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^img-etl: ${command}: [^\\n]*manifest\\.json ${says}[^\\n]*\\n$`));
      expect(run.stderr).toContain(join(folders[0]!, 'manifest.json'));
    });
  }
});
