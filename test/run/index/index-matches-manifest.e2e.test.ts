/**
 * An images.index that does not match its manifest (tampered at the same size, or stale: copied from another run) is
 * not trusted for the drift: `img-etl report --against` gives the drift the full diff gives.
 */
import { copyFile, cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../../src/report/report-data.js';
import { makeReportSnapshots, type ReportSnapshots } from '../../helpers/report-snapshots.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

let dir: string;
let snaps: ReportSnapshots;

const readJson = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;

beforeAll(async () => {
  dir = await tempDir();
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 200, { edits: 3, deletes: 0, inserts: 0, to: 'parquet' });
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

/** The start of the rows of an index file. */
function rowsStart(bytes: Buffer): number {
  return Math.ceil((12 + bytes.readUInt32LE(8)) / 8) * 8;
}

/** The drift `report newer --against older` gives, into `name`.json. */
async function driftOf(older: string, newer: string, name: string) {
  const out = join(dir, 'out', `${name}.html`);
  const run = await runCliHere(['report', newer, '--against', older, '--out', out]);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return (await readJson<ReportData>(join(dir, 'out', `${name}.json`))).drift;
}

/** A copy of the two snapshots under `name`, the newer's index changed by `change`. */
async function copyWith(name: string, change: (newer: string, older: string) => Promise<void>) {
  const [older, newer] = [join(dir, name, 'old'), join(dir, name, 'new')];
  await cp(snaps.folders[0]!, older, { recursive: true });
  await cp(snaps.folders[1]!, newer, { recursive: true });
  await change(newer, older);
  return { older, newer };
}

describe('an index that does not match its manifest', () => {
  it('tampered at the same size (changed records given their old hashes) is not trusted', async () => {
    const want = await driftOf(snaps.folders[0]!, snaps.folders[1]!, 'want');
    expect(want!.changed).toBeGreaterThanOrEqual(3);
    const { older, newer } = await copyWith('tampered', async (n, o) => {
      const [a, b] = [await readFile(join(o, 'images.index')), await readFile(join(n, 'images.index'))];
      expect(a.length).toBe(b.length); // the same ids: only edits
      const start = rowsStart(b);
      a.copy(b, start, start, a.length); // every row's hash as the older snapshot's
      await writeFile(join(n, 'images.index'), b);
    });
    const got = await driftOf(older, newer, 'tampered');
    expect({ ...got, against: '' }).toEqual({ ...want, against: '' });
  });

  it('stale (the older snapshot’s index copied beside the newer) is not trusted', async () => {
    const want = await driftOf(snaps.folders[0]!, snaps.folders[1]!, 'want2');
    const { older, newer } = await copyWith('stale', (n, o) =>
      copyFile(join(o, 'images.index'), join(n, 'images.index')),
    );
    const got = await driftOf(older, newer, 'stale');
    expect({ ...got, against: '' }).toEqual({ ...want, against: '' });
  });
});

describe('an index beside a data file that does not match its manifest', () => {
  it('does not vouch for it: report --against fails as without the index, even when no record changed', async () => {
    const older = join(dir, 'damaged', 'old');
    await cp(snaps.folders[1]!, older, { recursive: true }); // the newer snapshot's copy: no hash differs
    const path = join(older, 'images.parquet');
    const bytes = await readFile(path);
    bytes[bytes.length >> 1]! ^= 0xff; // the same size, other bytes
    await writeFile(path, bytes);
    const run = await runCliHere([
      'report',
      snaps.folders[1]!,
      '--against',
      older,
      '--out',
      join(dir, 'out', 'x.html'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${path} does not match its manifest`);
  });
});
