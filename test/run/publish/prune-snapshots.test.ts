import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneSnapshots } from '../../../src/run/publish/snapshot-folders.js';
import { snapshotHistory } from '../../../src/report/snapshot-history.js';
import { listSnapshots } from '../../../src/snapshot/snapshot-names.js';
import { tempDir } from '../../helpers/readers.js';

let base: string;
beforeEach(async () => {
  base = await tempDir();
});
afterEach(() => rm(base, { recursive: true, force: true }));

const [OLD, NEW] = ['20261101T000000.000Z', '20261102T000000.000Z'];

/** A snapshot folder as img-etl publishes it, as far as pruning reads it: its manifest and the files it lists. */
async function snapshot(name: string, files: readonly string[]): Promise<string> {
  const dir = join(base, name);
  await mkdir(dir);
  for (const file of files) await writeFile(join(dir, file), `${file} of ${name}`);
  const listed = files.map((file) => ({ name: file, format: 'parquet', rows: 1, bytes: 1, sha256: '0'.repeat(64) }));
  const manifest = { tool: 'img-etl 0.1.0', complete: true, records_written: 1, files: listed };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

describe('pruneSnapshots against a stop part-way', () => {
  it('moves the folder aside before deleting in it: a failed deletion leaves no snapshot half-deleted', async () => {
    const old = await snapshot(OLD, ['images.parquet', 'collections.parquet']);
    await snapshot(NEW, ['images.parquet', 'collections.parquet']);
    // What stops the deletion after its first file, as a kill would: a folder where the second listed file was.
    await rm(join(old, 'collections.parquet'));
    await mkdir(join(old, 'collections.parquet'));
    await expect(pruneSnapshots(base, 1)).rejects.toThrow(/collections\.parquet/);
    // No folder of the old snapshot's name, with a manifest listing a file that is gone, for a reader to take.
    expect(await listSnapshots(base)).toEqual([NEW]);
    expect((await snapshotHistory(base)).map((point) => point.snapshot)).toEqual([NEW]);
    expect((await readdir(base)).sort()).toEqual([`.img-etl-pruning-${OLD}`, NEW]);
  });
});
