/**
 * A refused file-system call in words a user can act on: the path and why (`the disk is full (ENOSPC)`), never a bare
 * `ENOSPC: no space left on device, write` that names neither the file nor what to do.
 */
import { LoadError } from '../../text/load-error.js';
import { messageOf } from '../../text/message-of.js';

const REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a file is in the way of a folder',
  EEXIST: 'a file is in the way',
  EISDIR: 'a folder is in the way',
  ENOTEMPTY: 'the folder is not empty',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'input/output error',
  EBUSY: 'it is busy',
  EXDEV: 'it is on another file system',
  ELOOP: 'its links go round in a circle',
};

/**
 * The system's code of a file-system error: its `code`, or for one of Node's own (`fs.rm` of a folder throws
 * ERR_FS_EISDIR) the system code it wraps (`info.code`: EISDIR).
 */
function systemCode(cause: unknown): string | undefined {
  const { code, info } = (cause ?? {}) as { code?: unknown; info?: { code?: unknown } };
  const wrapped = typeof code === 'string' && code.startsWith('ERR_FS_') ? info?.code : undefined;
  const own = typeof wrapped === 'string' ? wrapped : code;
  return typeof own === 'string' ? own : undefined;
}

/** Why a file-system call failed: `the disk is full (ENOSPC)`; an error without a known code gives its own message. */
export function fileSystemReason(cause: unknown): string {
  const code = systemCode(cause);
  if (code !== undefined && REASONS[code] !== undefined) return `${REASONS[code]} (${code})`;
  return messageOf(cause);
}

/** True for an error of a Node file-system call: it names its system call and has a file-system code. */
export function isFileSystemError(cause: unknown): cause is NodeJS.ErrnoException {
  const { syscall } = cause instanceof Error ? (cause as NodeJS.ErrnoException) : {};
  const code = systemCode(cause);
  // A known code, not just a system call: a socket's ECONNRESET names one too (`read`).
  return typeof syscall === 'string' && code !== undefined && REASONS[code] !== undefined;
}

/**
 * Runs a file-system call on `path`, giving its error that path when the error names none: a write, a truncate or an
 * fsync of an open file (fs.writeFile's included) fails with `ENOSPC: no space left on device, write` and no path, and
 * fileSystemError, wherever the error is caught, names the path the error holds.
 */
export async function onPath<T>(path: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    if (isFileSystemError(cause) && cause.path === undefined) cause.path = path;
    throw cause;
  }
}

/** What `fileSystemError` reports. */
export interface FileSystemErrorOptions {
  /** The stage the message starts with: `load`, `staging`. */
  stage: string;
  /** What could not be done, before the path: `write to`, `create folder`. */
  action: string;
  /** The path named when the error names none (a failed write does not). */
  path: string;
  /** The error of the file-system call. */
  cause: unknown;
}

/**
 * A file-system error as a LOAD_WRITE_FAILED LoadError, one line: `{stage}: cannot {action} {path}: {reason}`, the
 * path the error names (a rename's target) or else the one given. Any other error is returned as it is.
 */
export function fileSystemError(options: FileSystemErrorOptions): unknown {
  const { stage, action, cause } = options;
  if (!isFileSystemError(cause)) return cause;
  const path = (cause as { dest?: string }).dest ?? cause.path ?? options.path; // a rename names its target
  const message = `${stage}: cannot ${action} ${path}: ${fileSystemReason(cause)}`;
  return LoadError.of('LOAD_WRITE_FAILED', message, cause);
}

/** The error for a folder standing where the file `path` is to be published (found before the rename would fail). */
export function folderInTheWay(path: string): LoadError {
  return LoadError.of('LOAD_WRITE_FAILED', `load: cannot publish ${path}: ${REASONS['EISDIR']} (EISDIR)`);
}
