/**
 * What tells one process from another that later got its pid: where /proc answers (Linux), when it started (field 22
 * of /proc/<pid>/stat, clock ticks after boot), the boot it runs in and its command line. Elsewhere each is undefined.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** A process as /proc describes it; a field /proc does not give is undefined. */
export interface ProcessIdentity {
  /** When it started: field 22 of /proc/<pid>/stat (clock ticks after boot), as written there. */
  startTime?: string;
  /** SHA-256 (hex) of its command line as /proc/<pid>/cmdline holds it (NUL-separated words). */
  commandSha256?: string;
  /** The words of its command line. */
  command?: string[];
}

/** What /proc says of process `pid` (`self` for this one); empty where /proc cannot be read. */
export async function processIdentity(pid: number | 'self'): Promise<ProcessIdentity> {
  const identity: ProcessIdentity = {};
  const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => undefined);
  // the command name in parentheses may hold spaces and parentheses: the fields follow the last `)`
  const startTime = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  if (startTime !== undefined && /^\d+$/.test(startTime)) identity.startTime = startTime;
  const cmdline = await readFile(`/proc/${pid}/cmdline`).catch(() => undefined);
  if (cmdline !== undefined && cmdline.length > 0) {
    identity.commandSha256 = createHash('sha256').update(cmdline).digest('hex');
    identity.command = cmdline.toString('utf8').replace(/\0$/, '').split('\0');
  }
  return identity;
}

/** This boot of the machine (/proc/sys/kernel/random/boot_id), or undefined where there is none. */
export async function bootId(): Promise<string | undefined> {
  const text = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined);
  return text?.trim() || undefined;
}

/** Whether a process `pid` exists (one of another user's included). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
