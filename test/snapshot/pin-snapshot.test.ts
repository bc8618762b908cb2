/**
 * `diff` reads two tables of each side (images, collections); through `latest`, each read followed the pointer again,
 * so a `--snapshot` run publishing meanwhile could pair one snapshot's images with the next one's collections. A side
 * is pinned once now: the real path of the folder `latest` names when the diff starts.
 */
import { mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pinSnapshot } from '../../src/snapshot/resolve-snapshot-file.js';
import { removeDir, tempDir } from '../helpers/readers.js';

const PARQUET_MAGIC = Buffer.from('PAR1');

describe('pinSnapshot', () => {
  let base: string;
  beforeEach(async () => {
    base = await tempDir();
    for (const name of ['20261101T000000.000Z', '20261102T000000.000Z']) {
      await mkdir(join(base, name));
      await writeFile(join(base, name, 'images.parquet'), PARQUET_MAGIC);
    }
  });
  afterEach(async () => removeDir(base));

  it('gives the folder latest names now, by its real path, and keeps it when latest moves', async () => {
    await symlink('20261101T000000.000Z', join(base, 'latest'));
    const first = await realpath(join(base, '20261101T000000.000Z'));
    const [fromBase, fromLatest] = [await pinSnapshot(base), await pinSnapshot(join(base, 'latest'))];
    expect([fromBase, fromLatest]).toEqual([first, first]);
    await rm(join(base, 'latest'));
    await symlink('20261102T000000.000Z', join(base, 'latest'));
    expect(await pinSnapshot(base)).toBe(await realpath(join(base, '20261102T000000.000Z')));
    expect(fromBase).toBe(first); // what was pinned before names the older snapshot still
  });

  it('follows a latest pointer file (where symlinks are unavailable) to its folder', async () => {
    await writeFile(join(base, 'latest'), '20261102T000000.000Z\n');
    expect(await pinSnapshot(base)).toBe(await realpath(join(base, '20261102T000000.000Z')));
  });

  it('gives a data file named directly, and a path that names no snapshot, as they are', async () => {
    const file = join(base, '20261101T000000.000Z', 'images.parquet');
    expect(await pinSnapshot(file)).toBe(file);
    expect(await pinSnapshot(join(base, 'nothing'))).toBe(join(base, 'nothing'));
    await mkdir(join(base, 'empty'));
    expect(await pinSnapshot(join(base, 'empty'))).toBe(join(base, 'empty'));
  });
});
