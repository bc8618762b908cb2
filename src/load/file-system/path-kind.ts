/** Tells whether a path holds a file, a folder or nothing. */
import { stat } from 'node:fs/promises';

/**
 * What is at `path` (following symlinks): a file, a folder, or nothing (missing, or under a file); the system's error
 * when it cannot be told (EACCES, say).
 */
export async function pathKind(path: string): Promise<'file' | 'folder' | undefined> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** Whether `path` is a file (following symlinks); false when it is missing, a folder or cannot be read. */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** Whether `path` is a folder (following symlinks); false when it is missing, a file or cannot be read. */
export async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
