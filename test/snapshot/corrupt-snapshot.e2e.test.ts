/**
 * A snapshot whose images.parquet has flipped bytes. A `--snapshot` run whose drift meets it notes
 * that on the page and publishes (exit 0), `report` and `diff` say in one line which file is wrong (exit 1), each
 * checked against the manifest's sha256 before a byte is decoded; a data file without a manifest that parquet-wasm
 * cannot decode is one line too, never a WebAssembly stack trace.
 */
import { copyFile, mkdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/report-data.js';
import { makeReportSnapshots, type ReportSnapshots } from '../helpers/report-snapshots.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';

let dir: string;
let snaps: ReportSnapshots;
let corrupted: string;

/** Inverts 400 bytes in the middle of a file: its size stays, its sha256 and its pages do not. */
async function flipBytes(path: string): Promise<void> {
  const bytes = await readFile(path);
  const middle = Math.floor(bytes.length / 2);
  for (let i = middle; i < middle + 400; i++) bytes[i] = bytes[i]! ^ 0xff;
  await writeFile(path, bytes);
}

beforeAll(async () => {
  dir = await tempDir();
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 400, {
    to: 'parquet',
    between: async (first) => {
      corrupted = join(first, 'images.parquet');
      await flipBytes(corrupted);
    },
  });
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

describe('a snapshot whose images.parquet has flipped bytes', () => {
  it('does not stop the next --snapshot run: the drift is a note naming the file, latest moves on', async () => {
    expect(snaps.folders).toHaveLength(2);
    expect(await readlink(join(snaps.base, 'latest'))).toBe(basename(snaps.folders[1]!));
    const report = JSON.parse(await readFile(join(snaps.folders[1]!, 'report.json'), 'utf8')) as ReportData;
    expect(report.drift).toBeNull();
    expect(report.drift_note).toContain(`no comparison with ${basename(snaps.folders[0]!)}: `);
    expect(report.drift_note).toContain(`${corrupted} does not match its manifest`);
    expect(report.drift_note).toMatch(/sha256 [0-9a-f]{64}.*sha256 [0-9a-f]{64}/);
  });

  it('makes report exit 1 with one line naming the file and its sha256', async () => {
    const run = await runCli(['report', snaps.folders[0]!, '--out', join(dir, 'out', 'r.html')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^img-etl: report: [^\n]*images\.parquet does not match its manifest[^\n]*sha256[^\n]*\n$/,
    );
    expect(run.stderr).toContain(corrupted);
  });

  it('makes report --against it exit 1 with one line', async () => {
    const run = await runCli([
      'report',
      snaps.folders[1]!,
      '--against',
      snaps.folders[0]!,
      '--out',
      join(dir, 'a.html'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^img-etl: report: [^\n]*does not match its manifest[^\n]*\n$/);
    expect(run.stderr).toContain(corrupted);
  });

  it('makes diff exit 1 with one line naming the file', async () => {
    const run = await runCli(['diff', snaps.folders[0]!, snaps.folders[1]!, '--out', join(dir, 'diff')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^img-etl: diff: [^\n]*does not match its manifest[^\n]*sha256[^\n]*\n$/);
    expect(run.stderr).toContain(corrupted);
  });

  it('without a manifest beside it, makes report exit 1 with one line naming the file, not a stack trace', async () => {
    const bare = join(dir, 'bare', 'images.parquet');
    await mkdir(join(dir, 'bare'), { recursive: true });
    await copyFile(corrupted, bare);
    expect((await stat(bare)).size).toBeGreaterThan(0);
    const run = await runCli(['report', bare, '--out', join(dir, 'bare', 'r.html')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^img-etl: report: cannot read [^\n]*images\.parquet: [^\n]*\n$/);
    expect(run.stderr).toContain(bare);
  });
});
