/**
 * Deleting one snapshot folder so that a kill at any point leaves none half-deleted under a snapshot's name: the folder
 * is first renamed, atomically in the same parent, to `.img-etl-pruning-<name>` (a name no reader takes for a
 * snapshot: snapshot-names.ts lists only snapshot names), and only then is what img-etl wrote in it deleted. The next
 * `--snapshot` run finishes what a killed or failed one left there (finishPruning), under its lock; one it cannot
 * finish stays beside the snapshots, said in one line, and never stops the run.
 */
import { readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSystemError } from '../../load/file-system/file-system-error.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { readManifest } from '../../snapshot/read-manifest.js';
import { oneLine } from '../../text/one-line.js';
import { SNAPSHOT_NAME } from '../../snapshot/snapshot-names.js';
import { PENDING_DIR, removeListedFile } from './publish-folder.js';
import { messageOf } from '../../text/message-of.js';

/** What a snapshot folder is named while it is pruned: this, then the folder's own name. */
export const PRUNING_PREFIX = '.img-etl-pruning-';

/**
 * Deletes the snapshot folder `name` of `baseDir`: moved aside, then what img-etl wrote in it deleted (finishFolder).
 * Resolves to whether the folder went (a folder holding files of someone's goes back to its name, with them); a
 * one-line LoadError naming the path and the reason when a step fails.
 */
export async function pruneFolder(baseDir: string, name: string): Promise<boolean> {
  const dir = join(baseDir, name);
  await rename(dir, join(baseDir, PRUNING_PREFIX + name)).catch((cause: unknown) => {
    throw fileSystemError({ stage: 'snapshot', action: `move ${dir} aside to`, path: dir, cause });
  });
  return finishFolder(baseDir, name);
}

/**
 * Finishes each pruning a run killed or a failure stopped part-way left in `baseDir` (a folder
 * `.img-etl-pruning-<snapshot name>`): what img-etl wrote in it is deleted, and a folder left holding files of
 * someone's goes back to its snapshot name. Resolves to a line for each it could not finish (the path and the reason,
 * and that it stays): such a folder is never taken for a snapshot, so a run goes on beside it; the next tries again.
 */
export async function finishPruning(baseDir: string): Promise<string[]> {
  const stays: string[] = [];
  for (const entry of await readdir(baseDir, { withFileTypes: true }).catch(() => [])) {
    const name = entry.name.slice(PRUNING_PREFIX.length);
    if (!entry.isDirectory() || !entry.name.startsWith(PRUNING_PREFIX) || !SNAPSHOT_NAME.test(name)) continue;
    await finishFolder(baseDir, name).catch((error: unknown) => {
      const why = oneLine(messageOf(error));
      stays.push(`${why}; ${join(baseDir, entry.name)} stays, to be pruned again by the next --snapshot run`);
    });
  }
  return stays;
}

/** Deletes what img-etl wrote in the folder `name` moved aside; one that still holds files goes back to `name`. */
async function finishFolder(baseDir: string, name: string): Promise<boolean> {
  const aside = join(baseDir, PRUNING_PREFIX + name);
  const removed = await removeSnapshot(aside).catch((cause: unknown) => {
    throw fileSystemError({ stage: 'snapshot', action: 'prune', path: aside, cause });
  });
  if (removed) return true;
  await rename(aside, join(baseDir, name)).catch((cause: unknown) => {
    throw fileSystemError({ stage: 'snapshot', action: `move ${aside} back to`, path: join(baseDir, name), cause });
  });
  return false;
}

/**
 * Deletes what img-etl wrote in a snapshot folder (the files its manifest lists, a sink's only while it holds what was
 * published; a pending publication; the manifest last), then the folder if that empties it; resolves to whether the
 * folder went.
 */
async function removeSnapshot(dir: string): Promise<boolean> {
  const manifest = await readManifest(join(dir, FILE_NAMES.manifest));
  for (const file of manifest?.files ?? []) await removeListedFile(dir, file);
  await rm(join(dir, PENDING_DIR), { recursive: true, force: true });
  await rm(join(dir, FILE_NAMES.manifest), { force: true });
  return rmdir(dir).then(
    () => true,
    () => false,
  );
}
