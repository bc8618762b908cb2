/**
 * A lock file that says which run holds a folder: its pid, host, boot, start time and a hash of its command line, one
 * JSON line. A lock is stale when its process has ended, is another process now (another start time or boot), or is
 * not img-etl; a stale lock is taken over, and the caller is told why. The older form held the pid alone: it is stale
 * unless that pid is an img-etl run. A lock of another host is never judged from here: it holds.
 */
import { randomBytes } from 'node:crypto';
import { link, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { onPath } from './file-system-error.js';
import { bootId, isAlive, processIdentity } from './process-identity.js';
import { readRegularFile, RegularFileError } from './read-regular-file.js';
import { z } from 'zod';

/** What a lock file records (the older form: `pid` alone). */
const LockRecord = z.object({
  pid: z.int().positive(),
  host: z.string().optional(),
  /** /proc/sys/kernel/random/boot_id of the machine when the lock was taken. */
  boot_id: z.string().optional(),
  /** Field 22 of /proc/<pid>/stat: the holder's start, in clock ticks after boot. */
  start_time: z.string().optional(),
  /** SHA-256 of the holder's /proc/<pid>/cmdline. */
  command_sha256: z.string().optional(),
});
type LockRecord = z.infer<typeof LockRecord>;

/** What `takeRunLock` found: the lock taken (`tookOver`: why the lock it replaced was stale), or who holds it. */
export type RunLockResult = { taken: true; tookOver?: string } | { taken: false; holder: string };

/**
 * Takes the lock file `path` for this process: creates it, or takes over a stale one. Resolves to who holds it (`pid
 * 42`, `pid 42 on host h; …`) when a live run does; throws the file system's error when it cannot be written.
 */
export async function takeRunLock(path: string): Promise<RunLockResult> {
  // A lock naming this process is another run's in it (a library caller's) while that run holds it, not stale.
  const key = await heldKey(path);
  if (held.has(key)) return { taken: false, holder: `pid ${process.pid}, a run in this process` };
  // Claimed in this process before anything is awaited: another run of it taking the lock meanwhile would otherwise
  // find this run's lock file, naming this process, and take it over as stale.
  held.add(key);
  let result: RunLockResult | undefined;
  try {
    result = await takeLockFile(path);
    return result;
  } finally {
    if (result?.taken !== true) held.delete(key);
  }
}

/** Creates the lock file `path`, or takes over a stale one; who holds it when a live run does. */
async function takeLockFile(path: string): Promise<RunLockResult> {
  const mine = await ownLock();
  let tookOver: string | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createLock(path, mine)) return tookOver === undefined ? { taken: true } : { taken: true, tookOver };
    const text = await readLock(path);
    if (text === undefined) continue; // released meanwhile
    const verdict = await judge(parseLock(text), path);
    if ('holder' in verdict) return { taken: false, holder: verdict.holder };
    if (await removeIfUnchanged(path, text)) tookOver = verdict.stale;
  }
  return { taken: false, holder: 'a run that took it while this one looked' };
}

/** Deletes the lock file `path` when it is this process's (a lock another run took over is left to it). */
export async function releaseRunLock(path: string): Promise<void> {
  if (!held.delete(await heldKey(path))) return; // not taken by a run of this process: another run's
  const text = await readLock(path);
  if (text === (await ownLock())) await rm(path, { force: true });
}

/**
 * The lock file's text; undefined when it is gone (released meanwhile) or cannot be read. A FIFO, a link or a file
 * larger than a lock is no run's lock, and not one to take over: a RegularFileError naming it.
 */
async function readLock(path: string): Promise<string | undefined> {
  return readRegularFile(path, { maxBytes: 4096 }).then(String, (err: unknown) => {
    if (err instanceof RegularFileError) throw err;
    return undefined;
  });
}

/** The lock files runs of this process hold, by heldKey. */
const held = new Set<string>();

/** A lock file's path with its folder's links resolved: one key however the folder is named. */
async function heldKey(path: string): Promise<string> {
  const folder = await realpath(dirname(path)).catch(() => resolve(dirname(path)));
  return join(folder, basename(path));
}

let own: Promise<string> | undefined;

/** This process's lock line. */
function ownLock(): Promise<string> {
  own ??= (async () => {
    const [boot, self] = await Promise.all([bootId(), processIdentity('self')]);
    const { startTime: start_time, commandSha256: command_sha256 } = self;
    const record: LockRecord = { pid: process.pid, host: hostname(), boot_id: boot, start_time, command_sha256 };
    return JSON.stringify(record) + '\n'; // the fields not known are undefined, which JSON leaves out
  })();
  return own;
}

/** Whether a live run holds a lock (`holder`, as a message names it), or why it is stale. */
async function judge(lock: LockRecord | undefined, path: string): Promise<{ holder: string } | { stale: string }> {
  if (lock === undefined) return { stale: 'it names no process' };
  const { pid } = lock;
  if (lock.host !== undefined && lock.host !== hostname())
    return { holder: `pid ${pid} on host ${lock.host}; if none is left there, delete ${path}` };
  if (!isAlive(pid)) return { stale: `pid ${pid} has ended` };
  const boot = await bootId();
  if (lock.boot_id !== undefined && boot !== undefined && lock.boot_id !== boot)
    return { stale: `pid ${pid} ran before the machine restarted` };
  const now = await processIdentity(pid);
  if (lock.start_time !== undefined && now.startTime !== undefined && lock.start_time !== now.startTime)
    return { stale: `pid ${pid} is another process now (started at another time)` };
  if (now.command !== undefined) {
    const same = lock.command_sha256 === undefined ? isImgEtl(now.command) : lock.command_sha256 === now.commandSha256;
    if (!same) return { stale: `pid ${pid} is not an img-etl run` };
  }
  if (pid === process.pid) return { stale: `pid ${pid} is this process` };
  return { holder: `pid ${pid}` };
}

/** Whether a command line runs img-etl's CLI: by its `img-etl` command or the package's `dist/src/cli/main.js`. */
function isImgEtl(command: readonly string[]): boolean {
  return command.some((word) => basename(word) === 'img-etl' || /(^|\/)dist\/src\/cli\/main\.js$/.test(word));
}

/** A lock file's record: a JSON line, or the older form's bare pid; undefined when it names no process. */
function parseLock(text: string): LockRecord | undefined {
  const trimmed = text.trim();
  try {
    return LockRecord.safeParse(/^\d+$/.test(trimmed) ? { pid: Number(trimmed) } : JSON.parse(trimmed)).data;
  } catch {
    return undefined;
  }
}

/**
 * Creates the lock file whole or not at all: written under a temporary name, then linked to `path`, which fails when it
 * exists (a reader never sees it half written). Where the file system has no hard links, an exclusive create.
 */
async function createLock(path: string, text: string): Promise<boolean> {
  const temp = tempBeside(path);
  try {
    await onPath(path, () => writeFile(temp, text, { flag: 'wx' }));
    await link(temp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
    return onPath(path, () => writeFile(path, text, { flag: 'wx' })).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    );
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Removes a stale lock that still reads `text`: moved aside first, so that a lock another run took meanwhile is put
 * back, never deleted. Whether it was removed.
 */
async function removeIfUnchanged(path: string, text: string): Promise<boolean> {
  const aside = tempBeside(path);
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    if ((await readLock(aside)) === text) return true;
    await link(aside, path).catch(() => undefined); // another run's new lock: back in place unless a third took it
    return false;
  } finally {
    await rm(aside, { force: true });
  }
}

/** A temporary name beside `path`, of the form img-etl's staging cleans up (`.<name>.tmp-<8 hex>`). */
function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${randomBytes(4).toString('hex')}`);
}
