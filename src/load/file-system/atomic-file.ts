/**
 * Atomic publication of an output file: bytes go to a temporary file in the same folder, which is fsynced and
 * renamed over the final name only on commit. A crash or an error never leaves a partial file under the final
 * name, and an existing file there stays untouched until the new one is complete.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileDigest, type Digest } from './file-digest.js';
import { fileSystemReason } from './file-system-error.js';
import { LoadError } from '../../text/load-error.js';

/** Options of `AtomicFile.create`. */
export interface AtomicFileOptions {
  /** Bytes gathered in memory before a write to disk; default 1 MiB. */
  bufferSize?: number;
}

const DEFAULT_BUFFER_SIZE = 1 << 20;

/** A file being written under a temporary name, published by `commit` or removed by `abort`. */
export class AtomicFile {
  private readonly digest = new FileDigest();
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private state: 'open' | 'committed' | 'aborted' = 'open';

  private constructor(
    /** The final path, which receives the file on commit. */
    readonly path: string,
    /** The temporary path the bytes are written to: `.<name>.tmp-<pid>-<random>` in the same folder. */
    readonly tempPath: string,
    private readonly handle: FileHandle,
    private readonly bufferSize: number,
  ) {}

  /** Creates the temporary file next to `path` (exclusive create; the final name is not touched yet). */
  static async create(path: string, options: AtomicFileOptions = {}): Promise<AtomicFile> {
    const bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    if (!Number.isInteger(bufferSize) || bufferSize < 1) {
      throw LoadError.of('LOAD_INVALID_OPTION', `load: bufferSize must be a positive integer, got ${bufferSize}`);
    }
    const tempPath = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    let handle: FileHandle;
    try {
      handle = await open(tempPath, 'wx');
    } catch (cause) {
      throw writeFailed(`cannot write ${path}`, cause);
    }
    return new AtomicFile(path, tempPath, handle, bufferSize);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.digest.bytes;
  }

  /** Appends bytes (strings as UTF-8); they reach the disk once the buffer is full or on `flush`/`commit`. */
  async write(chunk: Uint8Array | string): Promise<void> {
    this.ensureOpen();
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (bytes.byteLength === 0) return;
    this.digest.update(bytes);
    this.pending.push(bytes);
    this.pendingBytes += bytes.byteLength;
    if (this.pendingBytes >= this.bufferSize) await this.flush();
  }

  /** Writes the buffered bytes to the temporary file. */
  async flush(): Promise<void> {
    this.ensureOpen();
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    try {
      // writeFile writes every byte from where the file is, or fails (a write may write part of them).
      await this.handle.writeFile(data);
    } catch (cause) {
      throw writeFailed(`cannot write ${this.path}`, cause);
    }
  }

  /**
   * Flushes, fsyncs and renames the temporary file to the final path; returns its size and SHA-256. On failure the
   * temporary file is removed.
   */
  async commit(): Promise<Digest> {
    this.ensureOpen();
    try {
      await this.flush();
      await this.handle.sync();
      this.state = 'committed';
      await this.handle.close();
      await rename(this.tempPath, this.path);
    } catch (cause) {
      this.state = 'open';
      await this.abort();
      if (cause instanceof LoadError) throw cause;
      throw writeFailed(`cannot publish ${this.path}`, cause);
    }
    await syncFolder(dirname(this.path));
    return this.digest.digest();
  }

  /** Closes and removes the temporary file; the final path is left as it was. Safe to call more than once. */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.pending = [];
    await this.handle.close().catch(() => undefined); // may already be closed by a failed commit
    try {
      await unlink(this.tempPath);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw writeFailed(`cannot remove ${this.tempPath}`, cause);
      }
    }
  }

  private ensureOpen(): void {
    if (this.state !== 'open')
      throw LoadError.of('LOAD_WRITE_FAILED', `load: ${this.tempPath} is already ${this.state}`);
  }
}

/**
 * Writes the file at `path` whole or not at all, the one way a file is replaced: `fill` writes it under its temporary
 * name, and only once it has finished is the file published; on any failure the temporary file is removed and `path`
 * keeps what it held. Resolves to what `fill` returned, and the file's size and SHA-256.
 */
export async function replaceFile<T>(path: string, fill: (file: AtomicFile) => Promise<T>): Promise<[T, Digest]> {
  const file = await AtomicFile.create(path);
  try {
    const value = await fill(file);
    return [value, await file.commit()];
  } catch (error) {
    await file.abort();
    throw error;
  }
}

function writeFailed(what: string, cause: unknown): LoadError {
  return LoadError.of('LOAD_WRITE_FAILED', `load: ${what}: ${fileSystemReason(cause)}`, cause);
}

/**
 * Makes renames in `folder` durable; some platforms cannot fsync a folder, and there a rename is as durable as it gets.
 */
export async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // EISDIR/EPERM/EINVAL on platforms without folder fsync.
  }
}
