/**
 * The test set-up's Debian packages: headless Chromium for the report's browser test, pandas for load.py, nibabel for
 * the README's recipe that loads fetched image files. Where one is missing and the machine can install it (root,
 * apt-get), it is installed here, as CI does on a fresh machine; only where it cannot be installed does the caller
 * skip, printing the reason this gives.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** What each package provides, to tell whether it is installed. */
const PROVIDES: Record<string, () => boolean> = {
  chromium: () => existsSync('/usr/bin/chromium'),
  'python3-pandas': () => works('/usr/bin/python3', ['-c', 'import pandas']),
  'python3-nibabel': () => works('/usr/bin/python3', ['-c', 'import nibabel']),
};

function works(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Installs the packages that are missing; resolves to undefined when all are there, else why they cannot be. */
export function ensureDebianPackages(packages: (keyof typeof PROVIDES)[]): string | undefined {
  const missing = packages.filter((p) => !PROVIDES[p]!());
  if (missing.length === 0) return undefined;
  if (process.getuid?.() !== 0) return `${missing.join(', ')} not installed, and installing needs root`;
  if (!existsSync('/usr/bin/apt-get')) return `${missing.join(', ')} not installed, and there is no apt-get here`;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Another test file may be installing at the same time: wait for dpkg's lock rather than fail on it.
  const lock = ['-o', 'DPkg::Lock::Timeout=900'];
  try {
    execFileSync('apt-get', ['update', '-qq', ...lock], { stdio: 'ignore', env });
    const install = ['install', '-y', '-qq', '--no-install-recommends', ...lock, ...missing];
    execFileSync('apt-get', install, { stdio: 'ignore', env });
  } catch (error) {
    return `apt-get install ${missing.join(' ')} failed: ${(error as Error).message.split('\n')[0]}`;
  }
  const still = missing.filter((p) => !PROVIDES[p]!());
  return still.length === 0 ? undefined : `${still.join(', ')} still missing after apt-get install`;
}
