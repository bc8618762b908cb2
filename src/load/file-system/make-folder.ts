/** Creates folders, failing with an error that names the folder and the real reason. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileSystemReason } from './file-system-error.js';
import { LoadError } from '../../text/load-error.js';
import { isFolder } from './path-kind.js';

/**
 * Creates a folder and its parents. When it cannot, throws a LOAD_WRITE_FAILED LoadError naming the folder and the
 * real reason: a recursive mkdir says ENOENT under a read-only folder, EEXIST or ENOTDIR for a file in the way.
 */
export async function makeFolder(path: string, stage = 'load'): Promise<void> {
  try {
    await makeFolders(path);
  } catch (cause) {
    const reason = await whyNot(path, cause);
    throw LoadError.of('LOAD_WRITE_FAILED', `${stage}: cannot create folder ${path}: ${reason}`, cause);
  }
}

/** The folders of `path` that do not exist yet (none when it does), deepest first: what makeFolder would create. */
export async function missingFolders(path: string): Promise<string[]> {
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    const exists = await stat(at).then(
      () => true,
      () => false,
    );
    if (exists || dirname(at) === at) return missing;
    missing.push(at);
  }
}

/**
 * `mkdir(path, { recursive: true })` without its endless loop: Node 20's recursive mkdir retries a folder whose parent
 * exists for as long as creating it says ENOENT, which a path under /proc always does (100% CPU, never settling; seen
 * with `--out /proc/x`). Here a folder is tried at most twice, the second time after its parent was made or found:
 * that ENOENT is the answer. Throws the file system's error.
 */
export async function makeFolders(path: string): Promise<void> {
  const missing = await tryMkdir(path);
  if (missing === undefined) return;
  const parent = dirname(path);
  if (parent === path) throw missing;
  await makeFolders(parent);
  const again = await tryMkdir(path);
  if (again !== undefined) throw again;
}

/** Makes one folder: resolves to undefined when it is a folder now, to the error when it is ENOENT; throws others. */
async function tryMkdir(path: string): Promise<NodeJS.ErrnoException | undefined> {
  try {
    await mkdir(path);
    return undefined;
  } catch (err) {
    const error = err as NodeJS.ErrnoException;
    if (error.code === 'ENOENT') return error;
    if (error.code === 'EEXIST' && (await isFolder(path))) return undefined;
    throw error;
  }
}

/** Finds the nearest part of `path` that exists: a file there is the reason, else creating the next part shows it. */
async function whyNot(path: string, cause: unknown): Promise<string> {
  let below: string | undefined;
  for (let at = path; ; below = at, at = dirname(at)) {
    try {
      const folder = (await stat(at)).isDirectory();
      if (!folder) return below === undefined ? 'a file is in the way' : `${at} is a file, not a folder`;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && at !== dirname(at)) continue; // ENOTDIR: a file above it
      return fileSystemReason(err);
    }
    if (below === undefined) return fileSystemReason(cause); // it is a folder now: another process made it
    try {
      await mkdir(below);
    } catch (err) {
      // A folder that says its new child does not exist (/proc does): name it rather than the child.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return `${at} does not take new folders (ENOENT)`;
      return fileSystemReason(err);
    }
    return fileSystemReason(cause);
  }
}
