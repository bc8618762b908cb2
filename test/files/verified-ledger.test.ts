import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifiedFile } from '../../src/files/files-table.js';
import { LEDGER, readLedger, writeLedger } from '../../src/files/verified-ledger.js';
import { tempDir } from '../helpers/readers.js';

describe('the record of verified files a files table no longer lists', () => {
  let dir: string;
  const file = (id: number, mtimeNs?: bigint): VerifiedFile => ({
    id,
    link: 'file',
    bytes: 4,
    sha256: 'a'.repeat(64),
    mtimeNs,
  });
  beforeAll(async () => {
    dir = await tempDir();
    await mkdir(join(dir, '7'));
    for (const name of ['7/a.nii.gz', '7/b.nii.gz']) await writeFile(join(dir, name), 'data');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps the files still on disk that the table does not list as ok, and reads them back as they were', async () => {
    const known = new Map([
      [join(dir, '7/a.nii.gz'), file(1, 1_700_000_000_123_456_789n)],
      [join(dir, '7/b.nii.gz'), file(2)], // listed ok by the run: its table vouches for it now
      [join(dir, '7/gone.nii.gz'), file(3)], // no longer on disk
    ]);
    await writeLedger(dir, known, new Set([join(dir, '7/b.nii.gz')]));
    expect(await readLedger(dir)).toEqual(new Map([[join(dir, '7/a.nii.gz'), file(1, 1_700_000_000_123_456_789n)]]));
    expect((await readFile(join(dir, LEDGER), 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('leaves out a line that does not read, or names a path outside the folder', async () => {
    const good = { path: '7/a.nii.gz', id: 1, link: 'file', bytes: 4, sha256: 'a'.repeat(64), mtime_ns: null };
    const lines = [
      JSON.stringify(good),
      '{"path": "7/b.nii.gz"',
      JSON.stringify({ ...good, path: '../outside.nii.gz' }),
      JSON.stringify({ ...good, path: '/etc/passwd' }),
      JSON.stringify({ ...good, id: '1' }),
      JSON.stringify({ ...good, mtime_ns: 12 }),
      'null',
    ];
    await writeFile(join(dir, LEDGER), lines.join('\n'));
    expect([...(await readLedger(dir)).keys()]).toEqual([join(dir, '7/a.nii.gz')]);
  });

  it('is removed when no file is left to record', async () => {
    await writeLedger(dir, new Map(), new Set());
    await expect(readFile(join(dir, LEDGER))).rejects.toThrow(/ENOENT/);
  });
});
