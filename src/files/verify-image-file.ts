/**
 * Checking a fetched file on disk in one streaming read: its size and SHA-256, and for a `.nii.gz` that it is one
 * complete gzip stream (zlib checks the CRC-32 and length trailer) whose content starts with a NIfTI-1 or NIfTI-2
 * header (`sizeof_hdr` 348 or 540, either byte order, and the magic). A `.nii` is checked for the header itself.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

/** What the check found. */
export interface FileCheck {
  /** Bytes in the file. */
  bytes: number;
  /** Its SHA-256, hex. */
  sha256: string;
  /** Why the file is not a valid image, when it is not. */
  problem?: string;
}

const NIFTI2_BYTES = 540;

/** Reads the file once and checks it as `name` says (`.nii.gz`, `.nii`; any other file: size and digest only); `name` defaults to the path (a `.part` is checked under its final name). */
export async function verifyImageFile(path: string, name = path): Promise<FileCheck> {
  const hash = createHash('sha256');
  let bytes = 0;
  const head: Buffer[] = [];
  let headBytes = 0;
  const keepHead = (chunk: Buffer): void => {
    if (headBytes >= NIFTI2_BYTES) return;
    head.push(chunk.subarray(0, NIFTI2_BYTES - headBytes));
    headBytes += Math.min(chunk.length, NIFTI2_BYTES - headBytes);
  };
  const gz = /\.nii\.gz$/i.test(name);
  const nii = /\.nii$/i.test(name);
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      if (nii) keepHead(chunk);
      done(null, gz ? chunk : undefined);
    },
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      keepHead(chunk);
      done();
    },
  });
  let problem: string | undefined;
  try {
    if (gz) await pipeline(createReadStream(path), count, createGunzip(), sink);
    else await pipeline(createReadStream(path), count, new Writable({ write: (_c, _e, done) => done() }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('Z_')) problem = `is not a complete gzip stream (${(err as Error).message})`;
    else throw err;
  }
  if (problem === undefined && (gz || nii)) problem = niftiProblem(Buffer.concat(head, headBytes));
  return { bytes, sha256: hash.digest('hex'), ...(problem === undefined ? {} : { problem }) };
}

/** Why the first bytes are not a NIfTI-1 or NIfTI-2 header, or undefined when they are one. */
export function niftiProblem(head: Buffer): string | undefined {
  if (head.length < 348) return `holds ${head.length} bytes, too few for a NIfTI header (348)`;
  const sizeLE = head.readInt32LE(0);
  const sizeBE = head.readInt32BE(0);
  if (sizeLE === 348 || sizeBE === 348) {
    const magic = head.toString('latin1', 344, 348);
    return magic === 'n+1\0' || magic === 'ni1\0' ? undefined : `has a NIfTI-1 sizeof_hdr but the magic ${JSON.stringify(magic)}`;
  }
  if (sizeLE === 540 || sizeBE === 540) {
    if (head.length < NIFTI2_BYTES) return `holds ${head.length} bytes, too few for a NIfTI-2 header (540)`;
    const magic = head.toString('latin1', 4, 12);
    return magic === 'n+2\0\r\n\x1a\n' || magic === 'ni2\0\r\n\x1a\n' ? undefined : `has a NIfTI-2 sizeof_hdr but the magic ${JSON.stringify(magic)}`;
  }
  return `does not start with a NIfTI header (sizeof_hdr ${sizeLE}, expected 348 or 540)`;
}
