/**
 * A snapshot whose images.parquet is another, smaller snapshot's, under a manifest that still says
 * the first's rows (and complete). `report`, `diff` and `files` end with exit 1 and one line naming the file, what the
 * manifest gives and what the file has, whether the manifest's bytes and sha256 were left (the size differs) or made
 * to fit the new file (the rows differ); a `--snapshot` run whose drift meets it notes it on the page and publishes.
 */
import { createHash } from 'node:crypto';
import { copyFile, readFile, readlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/report-data.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { makeReportSnapshots, type ReportSnapshots } from '../helpers/report-snapshots.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

type Manifest = {
  records_written: number;
  complete: boolean;
  files: { name: string; rows: number; bytes: number; sha256: string }[];
};

let dir: string;
let snaps: ReportSnapshots;
let small: string;
let said: { rows: number; bytes: number };
let original: string; // the first snapshot's manifest as its run wrote it

const readManifest = async (folder: string) =>
  JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as Manifest;

/** Puts the small snapshot's images.parquet into `folder`; with `fit`, its manifest gets the new bytes and sha256. */
async function swapIn(folder: string, fit: boolean): Promise<void> {
  const bytes = await readFile(join(small, 'images.parquet'));
  await copyFile(join(small, 'images.parquet'), join(folder, 'images.parquet'));
  if (!fit) return;
  const manifest = await readManifest(folder);
  const entry = manifest.files.find((f) => f.name === 'images.parquet')!;
  entry.bytes = bytes.length;
  entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest, null, 2));
}

beforeAll(async () => {
  dir = await tempDir();
  small = join(dir, 'small');
  const service = await startFixtureService(); // the 59 real records
  try {
    const run = await runCliHere(['--base-url', service.url, '--out', small, '--quiet']);
    expect([run.code, run.stderr]).toEqual([0, '']);
  } finally {
    await service.close();
  }
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 400, {
    to: 'parquet',
    between: async (first) => {
      original = await readFile(join(first, 'manifest.json'), 'utf8');
      const manifest = await readManifest(first);
      const entry = manifest.files.find((f) => f.name === 'images.parquet')!;
      said = { rows: entry.rows, bytes: entry.bytes };
      expect([manifest.complete, manifest.records_written]).toEqual([true, entry.rows]);
      await swapIn(first, true);
    },
  });
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

describe('a snapshot whose images.parquet does not match its manifest', () => {
  it('is a note on the page of the next --snapshot run, which publishes', async () => {
    expect(await readlink(join(snaps.base, 'latest'))).toBe(basename(snaps.folders[1]!));
    const report = JSON.parse(await readFile(join(snaps.folders[1]!, 'report.json'), 'utf8')) as ReportData;
    expect(report.drift).toBeNull();
    expect(report.drift_note).toContain(`no comparison with ${basename(snaps.folders[0]!)}: `);
    expect(report.drift_note).toContain(
      `${join(snaps.folders[0]!, 'images.parquet')} does not match its manifest: ` +
        `${join(snaps.folders[0]!, 'manifest.json')} gives ${said.rows} rows, the file has 59 rows`,
    );
  });

  const oneLine = (prefix: string) =>
    new RegExp(
      `^img-etl: ${prefix}: [^\\n]*images\\.parquet does not match its manifest: ` +
        `[^\\n]*manifest\\.json gives ${said.rows} rows, the file has 59 rows\\n$`,
    );

  it('makes report exit 1 with one line: the rows the manifest gives and the rows found', async () => {
    const run = await runCliHere(['report', snaps.folders[0]!, '--out', join(dir, 'r.html')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine('report'));
  });

  it('makes diff exit 1 with one line', async () => {
    const run = await runCliHere(['diff', snaps.folders[0]!, snaps.folders[1]!, '--out', join(dir, 'diff')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine('diff'));
  });

  it('makes files exit 1 with one line, before anything is fetched', async () => {
    const run = await runCliHere(['files', snaps.folders[0]!, '--out', join(dir, 'maps'), '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(oneLine('files'));
  });

  it('with the manifest left as it was, makes report, diff and files say the bytes each has', async () => {
    await swapIn(snaps.folders[0]!, false);
    await writeFile(join(snaps.folders[0]!, 'manifest.json'), original);
    const listed = said.bytes;
    const found = (await readFile(join(small, 'images.parquet'))).length;
    expect(listed).not.toBe(found);
    for (const [command, ...args] of [
      ['report', snaps.folders[0]!, '--out', join(dir, 'r2.html')],
      ['diff', snaps.folders[0]!, snaps.folders[1]!, '--out', join(dir, 'diff2')],
      ['files', snaps.folders[0]!, '--out', join(dir, 'maps2'), '--quiet'],
    ]) {
      const run = await runCliHere([command!, ...args]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`^img-etl: ${command}: [^\\n]*images\\.parquet does not match its manifest: `),
      );
      expect(run.stderr).toContain(`manifest.json gives ${listed} bytes, the file has ${found} bytes\n`);
      expect(run.stderr.split('\n')).toHaveLength(2);
    }
  });
});
