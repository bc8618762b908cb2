/**
 * Scheduled snapshots: each run in its own folder named by its UTC start time, a `latest` pointer moved only
 * after a successful run, and pruning of older snapshots.
 */
import { randomBytes } from 'node:crypto';
import { lstat, readFile, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const NAME = /^\d{8}T\d{6}\.\d{3}Z$/;

/** The folder name of a snapshot started at `date`: `20261121T134955.123Z` (UTC, sortable, safe in every file system). */
export function snapshotName(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '');
}

/** Points `DIR/latest` at the snapshot folder `name`: a relative symlink, replaced atomically, or a one-line file where symlinks are unavailable. */
export async function publishLatest(baseDir: string, name: string): Promise<'symlink' | 'file'> {
  const latest = join(baseDir, 'latest');
  const temp = join(baseDir, `.latest.tmp-${randomBytes(4).toString('hex')}`);
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

/** The snapshot folder `DIR/latest` points at, if any. */
export async function latestSnapshot(baseDir: string): Promise<string | undefined> {
  const latest = join(baseDir, 'latest');
  try {
    const stat = await lstat(latest);
    if (stat.isSymbolicLink()) return await readlink(latest);
    return (await readFile(latest, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** Snapshot folders in `DIR`, oldest first. */
export async function listSnapshots(baseDir: string): Promise<string[]> {
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && NAME.test(e.name)).map((e) => e.name).sort();
}

/** Deletes all but the newest `keep` snapshot folders (never the one `latest` points at); resolves to the names deleted. */
export async function pruneSnapshots(baseDir: string, keep: number): Promise<string[]> {
  const all = await listSnapshots(baseDir);
  const current = await latestSnapshot(baseDir);
  const doomed = all.slice(0, Math.max(0, all.length - keep)).filter((name) => name !== current);
  for (const name of doomed) await rm(join(baseDir, name), { recursive: true, force: true });
  return doomed;
}
