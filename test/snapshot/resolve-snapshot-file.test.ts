/** What a path that cannot be read says: one line naming it once, and why in words (the raw error named it twice). */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSnapshotFile } from '../../src/snapshot/resolve-snapshot-file.js';
import { removeDir, tempDir } from '../helpers/readers.js';

describe('resolveSnapshotFile', () => {
  let dir: string;
  beforeEach(async () => (dir = await tempDir()));
  afterEach(async () => removeDir(dir));

  it('says that a latest pointing at itself goes round in a circle, naming it once', async () => {
    const base = join(dir, 'base');
    await mkdir(base);
    await symlink('latest', join(base, 'latest'));
    const latest = join(base, 'latest');
    const message = await resolveSnapshotFile(base).then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    expect(message).toBe(`diff: cannot read ${latest}: its links go round in a circle (ELOOP)`);
  });
});
