import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileSystemReason } from './file-system-error.js';
import { LoadError } from './load-error.js';

/**
 * Creates a folder and its parents. When it cannot, throws a LOAD_WRITE_FAILED LoadError naming the folder and the
 * real reason: Node's recursive mkdir says ENOENT under a read-only folder, EEXIST or ENOTDIR for a file in the way.
 */
export async function makeFolder(path: string, stage = 'load'): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (cause) {
    const reason = await whyNot(path, cause);
    throw new LoadError({
      code: 'LOAD_WRITE_FAILED',
      message: `${stage}: cannot create folder ${path}: ${reason}`,
      cause,
    });
  }
}

/** Finds the nearest part of `path` that exists: a file there is the reason, else creating the next part shows it. */
async function whyNot(path: string, cause: unknown): Promise<string> {
  let below: string | undefined;
  for (let at = path; ; below = at, at = dirname(at)) {
    try {
      const isFolder = (await stat(at)).isDirectory();
      if (!isFolder) return below === undefined ? 'a file is in the way' : `${at} is a file, not a folder`;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && at !== dirname(at)) continue; // ENOTDIR: a file above it
      return fileSystemReason(err);
    }
    if (below === undefined) return fileSystemReason(cause); // it is a folder now: another process made it
    try {
      await mkdir(below);
    } catch (err) {
      return fileSystemReason(err);
    }
    return fileSystemReason(cause);
  }
}
