/**
 * The one way img-etl opens a file someone may have left: a regular file of a bounded size, checked on the opened
 * handle; a FIFO (never waited on), a link (unless the rule follows it), a device, a folder, a file too large or one
 * that changes size while read is refused with one RegularFileError whose message is the path and the reason.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  openRegularFile,
  readRegularFile,
  readRegularFileSync,
  RegularFileError,
} from '../../../src/load/file-system/read-regular-file.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(() => removeDir(dir));

/** The refusal of `read`, as `[message, reason]`; fails the test when it resolves or throws anything else. */
async function refusal(read: Promise<unknown>): Promise<[string, string]> {
  const err = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RegularFileError);
  const { message, reason } = err as RegularFileError;
  return [message, reason];
}

describe('openRegularFile and readRegularFile', () => {
  it('read a regular file whole; the handle opened gives its size', async () => {
    const path = join(dir, 'a.json');
    await writeFile(path, '{"a":1}\n');
    expect((await readRegularFile(path, { maxBytes: 100 })).toString()).toBe('{"a":1}\n');
    expect(readRegularFileSync(path, { maxBytes: 100 }).toString()).toBe('{"a":1}\n');
    const { handle, size } = await openRegularFile(path);
    try {
      expect(size).toBe(8);
      expect((await handle.readFile()).toString()).toBe('{"a":1}\n');
    } finally {
      await handle.close();
    }
  });

  it('refuse a FIFO at once, never waiting for a writer', { timeout: 10_000 }, async () => {
    const path = join(dir, 'fifo');
    execFileSync('mkfifo', [path]);
    const reason = 'is not a regular file (a FIFO)';
    expect(await refusal(openRegularFile(path))).toEqual([`${path} ${reason}`, reason]);
    const read = readRegularFile(path, { maxBytes: 100, followLink: true });
    expect(await refusal(read)).toEqual([`${path} ${reason}`, reason]);
    expect(() => readRegularFileSync(path, { maxBytes: 100 })).toThrow(`${path} ${reason}`);
  });

  it('refuse a symbolic link unopened, and follow it when the rule says so (its target checked)', async () => {
    const target = join(dir, 'target.txt');
    await writeFile(target, 'text');
    const link = join(dir, 'link.txt');
    await symlink(target, link);
    expect(await refusal(openRegularFile(link))).toEqual([`${link} is a symbolic link`, 'is a symbolic link']);
    expect((await readRegularFile(link, { maxBytes: 100, followLink: true })).toString()).toBe('text');
    const toFifo = join(dir, 'to-fifo');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    await symlink(join(dir, 'fifo'), toFifo);
    expect(await refusal(openRegularFile(toFifo, { followLink: true }))).toEqual([
      `${toFifo} is not a regular file (a FIFO)`,
      'is not a regular file (a FIFO)',
    ]);
  });

  it('refuse /dev/zero, a folder and a file larger than the bound, before a byte is read', async () => {
    expect((await refusal(openRegularFile('/dev/zero')))[0]).toBe(
      '/dev/zero is not a regular file (a character device)',
    );
    await mkdir(join(dir, 'folder'));
    expect((await refusal(openRegularFile(join(dir, 'folder'))))[1]).toBe('is not a regular file (a folder)');
    const large = join(dir, 'large');
    await writeFile(large, Buffer.alloc(101));
    expect((await refusal(readRegularFile(large, { maxBytes: 100 })))[1]).toBe('is 101 bytes; at most 100 are read');
    expect((await refusal(openRegularFile(large, { maxBytes: 100 })))[1]).toBe('is 101 bytes; at most 100 are read');
    const sizeProblem = (size: number) => (size === 5 ? undefined : `is ${size} bytes; the journal says 5`);
    expect((await refusal(readRegularFile(large, { maxBytes: 5, sizeProblem })))[1]).toBe(
      'is 101 bytes; the journal says 5',
    );
  });

  it('refuse a file that changes size between the check and the read', async () => {
    const path = join(dir, 'growing');
    await writeFile(path, 'abc');
    // called on the opened handle's size, before the read: another program appends meanwhile
    const sizeProblem = () => void appendFileSync(path, 'def');
    expect((await refusal(readRegularFile(path, { maxBytes: 100, sizeProblem })))[1]).toBe(
      'changed size while it was read',
    );
    expect(() => readRegularFileSync(path, { maxBytes: 100, sizeProblem })).toThrow(
      `${path} changed size while it was read`,
    );
  });

  it("give the system's own error for a file that is not there", async () => {
    await expect(openRegularFile(join(dir, 'none'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
