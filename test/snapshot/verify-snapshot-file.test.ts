/**
 * The manifest's record counts checked by listedFile: against the rows it lists for the data file
 * of their table, and against one another by the rules every run's manifest keeps, each broken rule one line naming
 * the manifest and what it gives.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedFile } from '../../src/snapshot/verify-snapshot-file.js';
import { TOOL } from '../../src/snapshot/tool.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let dir: string;
let folder = 0;

/** The counts of a valid run of 30 records, 2 of them rejected, with `changes` applied. */
function manifest(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tool: TOOL,
    complete: true,
    expected: 32,
    received: 32,
    missing: 0,
    count_at_start: 31,
    count_at_end: 32,
    records_written: 30,
    rejects: 2,
    collections: { records_written: 4 },
    files: [
      { name: 'images.parquet', format: 'parquet', rows: 30, bytes: 10, sha256: '0'.repeat(64) },
      { name: 'collections.parquet', format: 'parquet', rows: 4, bytes: 10, sha256: '0'.repeat(64) },
    ],
    ...changes,
  };
}

/** listedFile of `name` under a manifest of the counts `changes` give; the thrown message, or 'ok'. */
async function check(changes: Record<string, unknown>, name = 'images.parquet'): Promise<string> {
  const path = join(dir, String(folder++));
  await mkdir(path);
  await writeFile(join(path, 'manifest.json'), JSON.stringify(manifest(changes)));
  try {
    await listedFile(join(path, name));
    return 'ok';
  } catch (error) {
    return (error as Error).message.replace(`${path}/`, '');
  }
}

beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

describe('listedFile checks the manifest counts', () => {
  it('takes a valid run, one with rows left out by --where, and one that missed records', async () => {
    expect(await check({})).toBe('ok');
    expect(await check({ received: 40, expected: 40, count_at_end: 40 })).toBe('ok');
    expect(await check({ expected: 35, count_at_end: 35, missing: 3, complete: false })).toBe('ok');
    expect(await check({ missing: 5, complete: false })).toBe('ok'); // collections' own lists counted more
    expect(await check({}, 'collections.parquet')).toBe('ok');
  });

  it('refuses records_written other than the rows of its images or collections file', async () => {
    const tail = ': the manifest does not match its files';
    expect(await check({ records_written: 3000, received: 3002, expected: 3002, count_at_end: 3002 })).toBe(
      `diff: manifest.json gives records_written 3000, and 30 rows for images.parquet${tail}`,
    );
    expect(await check({ collections: { records_written: 9 } }, 'collections.parquet')).toBe(
      `diff: manifest.json gives collections.records_written 9, and 4 rows for collections.parquet${tail}`,
    );
  });

  it('refuses counts that contradict one another', async () => {
    const tail = ': the manifest does not match its files';
    expect(await check({ received: 3000, expected: 3000, count_at_end: 3000, records_written: 3001 })).toBe(
      `diff: manifest.json gives received 3000, fewer than records_written 3001 and rejects 2 together${tail}`,
    );
    expect(await check({ expected: 3000, count_at_start: 3000, count_at_end: 3000 })).toBe(
      `diff: manifest.json gives missing 0, fewer than expected 3000 less received 32${tail}`,
    );
    expect(await check({ complete: true, missing: 2, expected: 34, count_at_end: 34 })).toBe(
      `diff: manifest.json gives complete true with missing 2${tail}`,
    );
    expect(await check({ count_at_end: 3000 })).toBe(
      `diff: manifest.json gives count_at_end 3000, and expected 32: the count expected is the last one seen${tail}`,
    );
  });
});

describe('a manifest.json that does not read as JSON', () => {
  // Taken for no manifest before: the data files beside a manifest cut short or damaged were read unchecked.
  it("is refused in one line naming it, where another tool's JSON, or no file, is no manifest", async () => {
    const path = join(dir, 'cut-short');
    await mkdir(path);
    const text = JSON.stringify(manifest());
    await writeFile(join(path, 'manifest.json'), text.slice(0, text.length / 2));
    await expect(listedFile(join(path, 'images.parquet'))).rejects.toThrow(
      new RegExp(
        `^diff: ${path}/manifest\\.json does not read as JSON \\(.+\\): the files beside it cannot be checked$`,
      ),
    );
    await writeFile(join(path, 'manifest.json'), JSON.stringify({ name: 'another tool', files: [] }));
    expect(await listedFile(join(path, 'images.parquet'))).toBeUndefined();
    const none = join(dir, 'no-manifest');
    await mkdir(none);
    expect(await listedFile(join(none, 'images.parquet'))).toBeUndefined();
  });
});
