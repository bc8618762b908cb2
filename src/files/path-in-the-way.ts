/**
 * With sub-folders, one link's file can stand where another's path needs a folder, or the reverse (`5/a.nii.gz` and
 * `5/a.nii.gz/b.nii.gz`): such a link is reported, not left to fail the run when its folder or file cannot be made.
 */
import { dirname } from 'node:path';
import { pathKind } from '../load/file-system/path-kind.js';

/** Why `path` (under `outDir`) cannot hold a file: a file where it needs a folder, a folder at it; or undefined. */
export async function pathInTheWay(outDir: string, path: string): Promise<string | undefined> {
  if ((await pathKind(path)) === 'folder') return `${path} is a folder; move it to fetch this file`;
  for (const folder of foldersBetween(outDir, path)) {
    const kind = await pathKind(folder);
    if (kind === 'folder') return undefined;
    if (kind === 'file') return `${path}: ${folder} is a file, not a folder`;
  }
  return undefined;
}

/** The folders between `path` and `outDir` (which is left out), nearest first. */
export function foldersBetween(outDir: string, path: string): string[] {
  const folders: string[] = [];
  for (let folder = dirname(path); folder !== outDir && folder !== dirname(folder); folder = dirname(folder))
    folders.push(folder);
  return folders;
}
