/**
 * Publishing a run's files together. Every file of a run is first written, fsynced and closed in a pending folder
 * inside the output folder, the manifest last; only then are the files moved into the output folder, stale files of
 * the previous run deleted, and the manifest moved last. The manifest in the pending folder is the commit point: a
 * crash before it leaves the output folder untouched (the pending folder is discarded by the next run), a crash after
 * it is rolled forward by the next run. So the output folder always holds the files of one run, as its manifest lists.
 */
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncFolder } from '../../load/file-system/atomic-file.js';
import { fileSystemError, folderInTheWay } from '../../load/file-system/file-system-error.js';
import { LoadError } from '../../text/load-error.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { readManifest, type ManifestEntry } from '../../snapshot/read-manifest.js';
import { checkFileDigest } from '../../load/file-system/file-digest.js';
import { makeFolder } from '../../load/file-system/make-folder.js';
import { oneLine } from '../../text/one-line.js';
import { messageOf } from '../../text/message-of.js';

/** The pending folder inside an output folder. */
export const PENDING_DIR = '.img-etl-publish';

/**
 * Empties (or creates) the pending folder of `dataDir`, after finishing whatever an earlier run left there; resolves to
 * its path.
 */
export async function preparePending(dataDir: string): Promise<string> {
  await recoverPending(dataDir);
  const pending = join(dataDir, PENDING_DIR);
  await makeFolder(pending);
  return pending;
}

/**
 * Finishes a publication a crash interrupted (its manifest was written: roll forward) or discards one that never got
 * that far. One it cannot finish or discard (a mount point in it, say) is a one-line LoadError naming the path and why.
 */
export async function recoverPending(dataDir: string): Promise<void> {
  const pending = join(dataDir, PENDING_DIR);
  const entries = await readdir(pending).catch(() => undefined);
  if (entries === undefined) return;
  if (entries.includes(FILE_NAMES.manifest)) return publishPending(dataDir);
  await rm(pending, { recursive: true, force: true }).catch((cause: unknown) => {
    const action = "remove an earlier run's unfinished publication";
    throw fileSystemError({ stage: 'load', action, path: pending, cause });
  });
}

/**
 * recoverPending for a snapshot folder other than the one a run publishes into (`publishing`): one it cannot finish
 * or discard stays as it is (its folder's files with it, as a crash would leave them) and resolves to a line saying
 * what stays and why; the run goes on, and the next `--snapshot` run tries again.
 */
export async function recoverBeside(dataDir: string, publishing: string): Promise<string | undefined> {
  return recoverPending(dataDir).then(
    () => undefined,
    (error: unknown) =>
      `${oneLine(messageOf(error))}; it stays, to be tried again by the next ` +
      `--snapshot run (this run publishes into ${publishing})`,
  );
}

/**
 * Checks that every file can be moved into `dataDir`: no folder in the way of one, and no file img-etl did not write
 * (one neither the folder's manifest nor a pending publication's lists), so that a run that cannot publish leaves the
 * folder as it was and keeps its staging. Called before anything is fetched and again before the commit point.
 */
export async function checkTargets(dataDir: string, names: readonly string[]): Promise<void> {
  const ours = await ownFiles(dataDir);
  for (const name of names) {
    const path = join(dataDir, name);
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isDirectory() === true) throw folderInTheWay(path);
    if (stat !== undefined && !ours.has(name)) {
      throw LoadError.of(
        'LOAD_NOT_OURS',
        `load: cannot publish ${path}: a file img-etl did not write is in the way ` +
          '(move it, or choose another --out)',
      );
    }
  }
}

/**
 * Checks that the pending folder holds only the files the manifest will list (each listed once: checkRunFiles): a
 * file a sink wrote there without resolving to it would be removed with the folder, unpublished; the run stops
 * instead, saying so.
 */
export async function checkPendingListed(pending: string, names: readonly string[]): Promise<void> {
  const listed = new Set(names);
  for (const name of await readdir(pending)) {
    if (listed.has(name)) continue;
    throw LoadError.of(
      'LOAD_INVALID_OPTION',
      `load: ${join(pending, name)} is in the run's folder but no sink resolved to it: a sink resolves to the ` +
        'files it writes into run.pending (a SinkResult, or an array of them) to have them published',
    );
  }
}

/** The names in `dataDir` img-etl wrote: the manifest, and the files it and a pending publication's manifest list. */
async function ownFiles(dataDir: string): Promise<Set<string>> {
  const ours = new Set<string>();
  for (const path of [join(dataDir, FILE_NAMES.manifest), join(dataDir, PENDING_DIR, FILE_NAMES.manifest)]) {
    const manifest = await readManifest(path);
    if (manifest === undefined) continue;
    ours.add(FILE_NAMES.manifest);
    for (const { name } of manifest.files) ours.add(name);
  }
  return ours;
}

/**
 * Moves the pending files into `dataDir`, deletes the files of the previous run the new manifest does not list, moves
 * the manifest last.
 */
export async function publishPending(dataDir: string): Promise<void> {
  try {
    await movePending(dataDir);
  } catch (cause) {
    throw fileSystemError({ stage: 'load', action: 'publish', path: dataDir, cause });
  }
}

async function movePending(dataDir: string): Promise<void> {
  const pending = join(dataDir, PENDING_DIR);
  const manifest = await readManifest(join(pending, FILE_NAMES.manifest));
  if (manifest === undefined)
    throw new Error(`publish: ${join(pending, FILE_NAMES.manifest)} is not an img-etl manifest`);
  const names = new Set(manifest.files.map((f) => f.name));
  const present = new Set(await readdir(pending));
  for (const name of names) if (present.has(name)) await rename(join(pending, name), join(dataDir, name));
  // The files the previous run left here are those its manifest lists; a file it does not list is not img-etl's to
  // delete, nor a sink's file that no longer holds the bytes that run published (someone changed it since).
  const previous = await readManifest(join(dataDir, FILE_NAMES.manifest));
  for (const file of previous?.files ?? []) if (!names.has(file.name)) await removeListedFile(dataDir, file);
  await rename(join(pending, FILE_NAMES.manifest), join(dataDir, FILE_NAMES.manifest));
  await syncFolder(dataDir);
  await rm(pending, { recursive: true, force: true });
}

/**
 * Deletes a file of `dataDir` that its manifest lists (publishing a run that does not write it again, or pruning the
 * folder); a sink's file only while it holds the bytes the manifest lists (else someone changed it since: theirs).
 */
export async function removeListedFile(dataDir: string, file: ManifestEntry): Promise<void> {
  const path = join(dataDir, file.name);
  // a sink's file gone or unreadable is not one to delete either
  if (file.format === 'sink' && (await checkFileDigest(path, file).catch(() => undefined))?.holds !== true) return;
  await rm(path, { force: true });
}
