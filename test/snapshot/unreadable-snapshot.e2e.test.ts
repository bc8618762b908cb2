/**
 * A snapshot file that is there but cannot be read: `report`, `diff` and `files` say so in the one wording every
 * file-system refusal has (fileSystemReason: `cannot read PATH: input/output error (EIO)`), never Node's raw
 * `EIO: i/o error, read`. The tests run as root, whom a file's permissions do not stop; the file refusing here is a
 * link to /proc/self/mem, which the kernel refuses to read at offset 0 with EIO, as a disk refuses a bad sector.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(() => removeDir(dir));

/** A file at `path` that is there (a regular file of 0 bytes to stat) but whose first read fails with EIO. */
const unreadable = (path: string) => symlink('/proc/self/mem', path);

const EIO = 'input/output error (EIO)';

describe('a snapshot file that cannot be read', () => {
  it.each([
    ['report', (file: string) => ['report', file, '--out', join(dir, 'r.html')]],
    ['diff', (file: string) => ['diff', file, file, '--out', join(dir, 'd')]],
    ['files', (file: string) => ['files', file, '--out', join(dir, 'files'), '--dry-run']],
  ])('%s given the data file: one line naming it and the reason in words, exit 1', async (command, args) => {
    const file = join(dir, 'images.parquet');
    await unreadable(file);
    const run = await runCliHere(args(file));
    expect([run.code, run.stderr]).toEqual([1, `img-etl: ${command}: cannot read ${file}: ${EIO}\n`]);
  });

  it('report given a snapshot folder whose manifest lists the file: checked against it, the same line', async () => {
    const folder = join(dir, 'snap');
    await mkdir(folder);
    await unreadable(join(folder, 'images.parquet'));
    const files = [{ name: 'images.parquet', format: 'parquet', rows: 0, bytes: 0, sha256: '0'.repeat(64) }];
    await writeFile(join(folder, 'manifest.json'), JSON.stringify({ tool: 'img-etl 0.1.0', files }));
    const run = await runCliHere(['report', folder, '--out', join(dir, 'r.html')]);
    const file = join(folder, 'images.parquet');
    expect([run.code, run.stderr]).toEqual([1, `img-etl: report: cannot read ${file}: ${EIO}\n`]);
  });

  it('report given a CSV data file: the same line', async () => {
    const file = join(dir, 'images.csv');
    await unreadable(file);
    const run = await runCliHere(['report', file, '--out', join(dir, 'r.html')]);
    expect([run.code, run.stderr]).toEqual([1, `img-etl: report: cannot read ${file}: ${EIO}\n`]);
  });
});
