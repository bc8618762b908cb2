/**
 * A small real file system for a test: a tmpfs mounted on a temporary folder (the tests run as root on CI; mounting
 * needs CAP_SYS_ADMIN). Its size can be changed while mounted, so a test can fill it at the moment it chooses.
 */
import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted tmpfs. */
export interface Tmpfs {
  /** Where it is mounted. */
  dir: string;
  /** Bytes in use. */
  used(): number;
  /** Sets its size in bytes (rounded up to whole pages by the kernel). */
  resize(bytes: number): void;
  /** Files and folders in use (inodes, the root folder included). */
  inodesUsed(): number;
  /** Sets how many files and folders it may hold at most (inodes, the root folder included). */
  limitInodes(count: number): void;
  /** Unmounts it and removes the folder. */
  remove(): Promise<void>;
}

/** Mounts a tmpfs of `bytes` on a new temporary folder; throws, saying why, where this process may not mount. */
export async function mountTmpfs(bytes: number): Promise<Tmpfs> {
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`test: cannot mount a tmpfs on ${dir} (this test needs root): ${(err as Error).message}`, {
      cause: err,
    });
  }
  return {
    dir,
    used: () => {
      const s = statfsSync(dir);
      return (s.blocks - s.bfree) * s.bsize;
    },
    resize: (size: number) => execFileSync('mount', ['-o', `remount,size=${size}`, dir], { stdio: 'pipe' }),
    inodesUsed: () => {
      const s = statfsSync(dir);
      return s.files - s.ffree;
    },
    limitInodes: (count: number) => execFileSync('mount', ['-o', `remount,nr_inodes=${count}`, dir], { stdio: 'pipe' }),
    remove: async () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
