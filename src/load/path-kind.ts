import { stat } from 'node:fs/promises';

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
