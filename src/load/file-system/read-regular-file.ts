/**
 * Reading a file that must be a regular file of a bounded size, checked on the open handle before a byte of it is
 * read: a FIFO's open waits for a writer for ever, /dev/zero never ends, and a link may lead anywhere. The path is
 * opened without blocking (O_NONBLOCK) and, unless told otherwise, without following a link (O_NOFOLLOW); fstat on
 * the handle then says what was opened, so nothing can be swapped in between the check and the read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** What a file must be to be read; anything else is refused (RegularFileError) before a byte of it is read. */
export interface RegularFileRule {
  /** The most bytes read: a larger file is refused (and one that changes size while read). */
  maxBytes: number;
  /** Why a file of `size` bytes is not to be read (too large, not the size recorded), or undefined; default none. */
  sizeProblem?: (size: number) => string | undefined;
  /** Open a symbolic link at the path (its target is checked); default false: a link is refused unopened. */
  followLink?: boolean;
}

/** Why a file was refused unread, in words that follow its path: `is not a regular file (a FIFO)`. */
export class RegularFileError extends Error {
  override readonly name = 'RegularFileError';
}

/** The bytes of the regular file at `path` under `rule`; throws RegularFileError, or the system's error (ENOENT). */
export async function readRegularFile(path: string, rule: RegularFileRule): Promise<Buffer> {
  const handle = await open(path, openFlags(rule)).catch((err: unknown) => {
    throw linkRefusal(err, rule);
  });
  try {
    const buffer = Buffer.alloc(checkOpened(await handle.stat(), rule) + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = (await handle.read(buffer, length, buffer.length - length, null)).bytesRead;
    return readWhole(buffer, length);
  } finally {
    await handle.close();
  }
}

/** readRegularFile, synchronously (for a caller that cannot wait, such as a yargs config parser). */
export function readRegularFileSync(path: string, rule: RegularFileRule): Buffer {
  let fd: number;
  try {
    fd = openSync(path, openFlags(rule));
  } catch (err) {
    throw linkRefusal(err, rule);
  }
  try {
    const buffer = Buffer.alloc(checkOpened(fstatSync(fd), rule) + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    return readWhole(buffer, length);
  } finally {
    closeSync(fd);
  }
}

function openFlags(rule: RegularFileRule): number {
  const noFollow = rule.followLink === true ? 0 : (constants.O_NOFOLLOW ?? 0);
  return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | noFollow;
}

/** A refused link in words (O_NOFOLLOW fails with ELOOP on one); any other error as it is. */
function linkRefusal(err: unknown, rule: RegularFileRule): unknown {
  const refused = rule.followLink !== true && (err as NodeJS.ErrnoException | null)?.code === 'ELOOP';
  return refused ? new RegularFileError('is a symbolic link', { cause: err }) : err;
}

/** The size of what was opened, once it is found to be a regular file of a size the rule allows; throws otherwise. */
function checkOpened(stats: Stats, rule: RegularFileRule): number {
  if (!stats.isFile()) throw new RegularFileError(`is not a regular file (${kindOf(stats)})`);
  const problem = rule.sizeProblem?.(stats.size);
  if (problem !== undefined) throw new RegularFileError(problem);
  if (stats.size > rule.maxBytes)
    throw new RegularFileError(`is ${stats.size} bytes; at most ${rule.maxBytes} are read`);
  return stats.size;
}

/** The bytes read into `buffer`, one byte longer than fstat said: refused when the file changed size meanwhile. */
function readWhole(buffer: Buffer, length: number): Buffer {
  if (length !== buffer.length - 1) throw new RegularFileError('changed size while it was read');
  return buffer.subarray(0, length);
}

/** What a file that is not a regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'an unknown kind of file';
}
