/**
 * Size and SHA-256 of a byte stream, computed as the bytes go by so that no file is read back.
 */
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { openRegularFile } from './read-regular-file.js';

/** The size and digest of a finished byte stream. */
export interface Digest {
  /** Number of bytes. */
  bytes: number;
  /** Lowercase hex SHA-256. */
  sha256: string;
}

/** Accumulates the size and SHA-256 of the bytes given to `update`. */
export class FileDigest {
  private readonly hash: Hash = createHash('sha256');
  private count = 0;

  /** Adds bytes to the digest. */
  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.count += chunk.byteLength;
  }

  /** Bytes seen so far. */
  get bytes(): number {
    return this.count;
  }

  /** Finishes the digest; call once. */
  digest(): Digest {
    return { bytes: this.count, sha256: this.hash.digest('hex') };
  }
}

/** The size and SHA-256 of the file open at `handle`, read in 1 MiB chunks from where it is; the handle is closed. */
export async function digestOf(handle: FileHandle): Promise<Digest> {
  const digest = new FileDigest();
  for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20 })) digest.update(chunk as Buffer);
  return digest.digest();
}

/**
 * Whether the file at `path` holds the bytes `listed` gives (a manifest's entry, a sink's result): its size and
 * SHA-256, with what was found; rejects when the regular file cannot be read (a link followed: see openRegularFile).
 */
export async function checkFileDigest(path: string, listed: { bytes?: unknown; sha256?: unknown }) {
  const found = await digestOf((await openRegularFile(path, { followLink: true })).handle);
  return { found, holds: found.bytes === listed.bytes && found.sha256 === listed.sha256 };
}
