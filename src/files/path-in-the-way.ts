/**
 * With sub-folders, one link's file can stand where another's path needs a folder, or the reverse (`5/a.nii.gz` and
 * `5/a.nii.gz/b.nii.gz`): such a link is reported, not left to fail the run when its folder or file cannot be made.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Why `path` (under `outDir`) cannot hold a file: a file where it needs a folder, a folder at it; or undefined. */
export async function pathInTheWay(outDir: string, path: string): Promise<string | undefined> {
  if ((await kindOf(path)) === 'folder') return `${path} is a folder; move it to fetch this file`;
  for (let folder = dirname(path); folder !== outDir && folder !== dirname(folder); folder = dirname(folder)) {
    const kind = await kindOf(folder);
    if (kind === 'folder') return undefined;
    if (kind === 'file') return `${path}: ${folder} is a file, not a folder`;
  }
  return undefined;
}

async function kindOf(path: string): Promise<'file' | 'folder' | undefined> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
