/**
 * Scheduled snapshots: each run in its own folder named by its UTC start time, a `latest` pointer moved only
 * after a successful run, and pruning of older snapshots.
 */
import { randomBytes } from 'node:crypto';
import { type Stats } from 'node:fs';
import { lstat, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSystemError } from '../../load/file-system/file-system-error.js';
import { LoadError } from '../../text/load-error.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { finishPruning, pruneFolder } from './prune-folder.js';
import { readManifest } from '../../snapshot/read-manifest.js';
import { latestSnapshot, listSnapshots, SNAPSHOT_NAME } from '../../snapshot/snapshot-names.js';

/**
 * Points `DIR/latest` at the snapshot folder `name`: a relative symlink, replaced atomically, or a one-line file where
 * symlinks are unavailable. A refusal (a `latest` of someone's, see checkLatest, or a folder that holds no published
 * snapshot, such as one pruned meanwhile) is a one-line LoadError naming it.
 */
export async function publishLatest(baseDir: string, name: string): Promise<'symlink' | 'file'> {
  const latest = join(baseDir, 'latest');
  const temp = join(baseDir, `.latest.tmp-${randomBytes(4).toString('hex')}`);
  await checkLatest(baseDir);
  if (!SNAPSHOT_NAME.test(name) || (await readManifest(join(baseDir, name, FILE_NAMES.manifest))) === undefined)
    throw LoadError.of(
      'LOAD_INVALID_OPTION',
      `snapshot: cannot point ${latest} at ${name}: it holds no snapshot img-etl published`,
    );
  try {
    await removeLeftTemps(baseDir);
    return await pointLatest(latest, temp, name);
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw fileSystemError({ stage: 'snapshot', action: `link ${name} as`, path: latest, cause });
  }
}

/** The temporary name publishLatest gives the new link (or file) before it renames it to `latest`. */
const LATEST_TEMP = /^\.latest\.tmp-[0-9a-f]{8}$/;

/**
 * Removes what a publishLatest killed between making its temporary link and renaming it left: entries of that name
 * that are a link or a small file, as it makes them (anything else of that name is someone's and stays).
 */
async function removeLeftTemps(baseDir: string): Promise<void> {
  for (const entry of await readdir(baseDir, { withFileTypes: true })) {
    if (!LATEST_TEMP.test(entry.name)) continue;
    const path = join(baseDir, entry.name);
    const stat = await lstat(path).catch(() => undefined);
    if (stat !== undefined && isLatestShaped(stat)) await rm(path, { force: true });
  }
}

/** Whether an entry is of the kind pointLatest makes: a symlink, or a one-line file where symlinks are unavailable. */
function isLatestShaped(stat: Stats): boolean {
  return stat.isSymbolicLink() || (stat.isFile() && stat.size <= 64);
}

async function pointLatest(latest: string, temp: string, name: string): Promise<'symlink' | 'file'> {
  try {
    await symlink(name, temp, 'dir');
    await rename(temp, latest);
    return 'symlink';
  } catch (err) {
    await rm(temp, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw err;
    await writeFile(temp, name + '\n');
    await rename(temp, latest);
    return 'file';
  }
}

/**
 * Refuses a `DIR/latest` img-etl did not make (anything but a link to a snapshot folder's name, or the one-line file
 * naming one where symlinks are unavailable), before a run and again before it is moved: it is never replaced.
 */
export async function checkLatest(baseDir: string): Promise<void> {
  const latest = join(baseDir, 'latest');
  const stat = await lstat(latest).catch(() => undefined);
  if (stat === undefined) return;
  const target = isLatestShaped(stat) ? await latestSnapshot(baseDir) : undefined;
  if (target !== undefined && SNAPSHOT_NAME.test(target)) return;
  throw LoadError.of(
    'LOAD_NOT_OURS',
    `snapshot: cannot point ${latest} at a snapshot: it is not a link img-etl made ` +
      '(move it, or choose another --out)',
  );
}

/** A snapshot folder `--keep` deleted, and why. */
export interface PrunedSnapshot {
  /** The folder name. */
  name: string;
  /** Whether its manifest said complete. */
  complete: boolean;
  /** Why it went, one phrase. */
  reason: string;
}

/**
 * Deletes old snapshot folders that img-etl wrote (a folder without an img-etl manifest inside is never touched, and a
 * file of someone's inside one stays, with its folder):
 * complete ones beyond the newest `keep` (never the one `latest` points at); incomplete ones older than the newest
 * complete snapshot kept, and beyond the newest `keep` incomplete ones after it. Resolves to what it deleted. Each
 * folder is moved aside before anything in it is deleted (prune-folder.ts), so a kill part-way leaves no snapshot
 * half-deleted; what a killed or failed pruning left is finished first, and one that cannot be stays beside the
 * snapshots (the run said so as it started: runSnapshot's `leftover` event).
 */
export async function pruneSnapshots(baseDir: string, keep: number): Promise<PrunedSnapshot[]> {
  await finishPruning(baseDir);
  const current = await latestSnapshot(baseDir);
  const ours: { name: string; complete: boolean }[] = [];
  for (const name of await listSnapshots(baseDir)) {
    const manifest = await readManifest(join(baseDir, name, FILE_NAMES.manifest));
    if (manifest !== undefined) ours.push({ name, complete: manifest.complete === true });
  }
  const complete = ours.filter((s) => s.complete);
  const kept = new Set(complete.slice(-keep).map((s) => s.name));
  const newestComplete = complete.at(-1)?.name ?? '';
  const incompleteAfter = ours.filter((s) => !s.complete && s.name > newestComplete);
  const keptIncomplete = new Set(incompleteAfter.slice(-keep).map((s) => s.name));
  const doomed: PrunedSnapshot[] = [];
  for (const s of ours) {
    if (s.name === current) continue;
    if (s.complete && !kept.has(s.name)) doomed.push({ ...s, reason: `beyond the newest ${keep} complete` });
    else if (!s.complete && s.name < newestComplete)
      doomed.push({ ...s, reason: 'incomplete, older than the newest complete snapshot' });
    else if (!s.complete && !keptIncomplete.has(s.name))
      doomed.push({ ...s, reason: `incomplete, beyond the newest ${keep} incomplete` });
  }
  for (const s of doomed)
    if (!(await pruneFolder(baseDir, s.name)))
      s.reason += '; the folder stays for the files img-etl did not write in it';
  return doomed;
}

/** What a `--snapshot` run does with its base folder once its own folder is published (runSnapshot's `finish`). */
export interface SnapshotFinish {
  /** Point `latest` at the run's folder when its manifest's `missing` is at most this many records. */
  maxMissing: number;
  /** Prune older snapshots keeping the newest N (pruneSnapshots); default: none pruned. */
  keep?: number;
}

/** What finishing a published snapshot did: the folder `latest` now points at, and the folders pruned. */
export interface SnapshotFinished {
  /** The snapshot folder `latest` was pointed at, when it was. */
  latest?: string;
  /** The folders `keep` deleted, when it was given. */
  pruned?: PrunedSnapshot[];
}

/** Points `latest` at the published snapshot folder `name` (unless it misses too many records), then prunes. */
export async function finishSnapshot(
  baseDir: string,
  name: string,
  missing: number,
  finish: SnapshotFinish,
): Promise<SnapshotFinished> {
  const done: SnapshotFinished = {};
  if (missing <= finish.maxMissing) {
    await publishLatest(baseDir, name);
    done.latest = name;
  }
  if (finish.keep !== undefined) done.pruned = await pruneSnapshots(baseDir, finish.keep);
  return done;
}
