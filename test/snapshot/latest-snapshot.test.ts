import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestSnapshot } from '../../src/snapshot/snapshot-names.js';
import { tempDir } from '../helpers/readers.js';

describe('latestSnapshot', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a link, and a pointer file where links are unavailable', async () => {
    await mkdir(join(dir, 'a'));
    await symlink('20261127T000000.000Z', join(dir, 'a', 'latest'));
    expect(await latestSnapshot(join(dir, 'a'))).toBe('20261127T000000.000Z');
    await mkdir(join(dir, 'b'));
    await writeFile(join(dir, 'b', 'latest'), '20261127T000000.000Z\n');
    expect(await latestSnapshot(join(dir, 'b'))).toBe('20261127T000000.000Z');
  });

  // A FIFO was read with readFile, which waits for a writer for ever: a library run with `snapshot: true` (the CLI
  // refuses such a `latest` first) or its report's drift hung on it.
  it('names nothing for a latest that is not a link nor a small file: a FIFO, a folder, a large file', async () => {
    await mkdir(join(dir, 'fifo'));
    execFileSync('mkfifo', [join(dir, 'fifo', 'latest')]);
    expect(await latestSnapshot(join(dir, 'fifo'))).toBeUndefined();
    await mkdir(join(dir, 'folder', 'latest'), { recursive: true });
    expect(await latestSnapshot(join(dir, 'folder'))).toBeUndefined();
    await mkdir(join(dir, 'large'));
    await writeFile(join(dir, 'large', 'latest'), 'x'.repeat(1 << 20));
    expect(await latestSnapshot(join(dir, 'large'))).toBeUndefined();
  }, 10_000);
});
