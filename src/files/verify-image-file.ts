/**
 * Checking a fetched file in one streaming pass: its size and SHA-256, and for a `.nii.gz` that it is exactly one
 * complete gzip member, nothing after it (gzip-member-check.ts: the CRC-32 and length trailer checked against what
 * inflated), whose content starts with a NIfTI-1 or NIfTI-2 header
 * (`sizeof_hdr` 348 or 540, either byte order, and the magic). A `.nii` is checked for the header itself. A download
 * from the first byte is checked as it arrives (imageCheck); a file on disk, or a continued `.part`, is read once.
 */
import { createHash } from 'node:crypto';
import { openRegularFile } from '../load/file-system/read-regular-file.js';
import { gzipMemberCheck, type BytesCheck } from './gzip-member-check.js';

/** What the check found. */
export interface FileCheck {
  /** Bytes in the file. */
  bytes: number;
  /** Its SHA-256, hex. */
  sha256: string;
  /** Why the file is not a valid image, when it is not. */
  problem?: string;
}

/** A check fed the file's bytes in order. */
export type ImageCheck = BytesCheck<FileCheck>;

const NIFTI2_BYTES = 540;

/** A check of a file named `name` (`.nii.gz`, `.nii`; any other: size and digest only), fed its bytes in order. */
export function imageCheck(name: string): ImageCheck {
  const hash = createHash('sha256');
  const gz = /\.nii\.gz$/i.test(name);
  const nii = !gz && /\.nii$/i.test(name);
  let bytes = 0;
  const head: Buffer[] = [];
  let headBytes = 0;
  const keepHead = (chunk: Buffer): void => {
    if (headBytes >= NIFTI2_BYTES) return;
    head.push(chunk.subarray(0, NIFTI2_BYTES - headBytes));
    headBytes += Math.min(chunk.length, NIFTI2_BYTES - headBytes);
  };
  const member = gz ? gzipMemberCheck(keepHead) : undefined;
  return {
    async write(chunk) {
      hash.update(chunk);
      bytes += chunk.length;
      if (nii) keepHead(chunk);
      await member?.write(chunk);
    },
    async finish() {
      const broken = await member?.finish();
      const problem = broken ?? (gz || nii ? niftiProblem(Buffer.concat(head, headBytes)) : undefined);
      return { bytes, sha256: hash.digest('hex'), ...(problem === undefined ? {} : { problem }) };
    },
    cancel() {
      member?.cancel();
    },
  };
}

/**
 * Reads the file once and checks it as `name` says; `name` defaults to the path (a `.part` is checked under its final
 * name). A RegularFileError when it is not a regular file (a link is followed).
 */
export async function verifyImageFile(path: string, name = path): Promise<FileCheck> {
  const check = imageCheck(name);
  const { handle } = await openRegularFile(path, { followLink: true });
  for await (const chunk of handle.createReadStream()) await check.write(chunk as Buffer);
  return check.finish();
}

/** Why the first bytes are not a NIfTI-1 or NIfTI-2 header, or undefined when they are one. */
export function niftiProblem(head: Buffer): string | undefined {
  if (head.length < 348) return `holds ${head.length} bytes, too few for a NIfTI header (348)`;
  const sizeLE = head.readInt32LE(0);
  const sizeBE = head.readInt32BE(0);
  if (sizeLE === 348 || sizeBE === 348) {
    const magic = head.toString('latin1', 344, 348);
    return magic === 'n+1\0' || magic === 'ni1\0'
      ? undefined
      : `has a NIfTI-1 sizeof_hdr but the magic ${JSON.stringify(magic)}`;
  }
  if (sizeLE === 540 || sizeBE === 540) {
    if (head.length < NIFTI2_BYTES) return `holds ${head.length} bytes, too few for a NIfTI-2 header (540)`;
    const magic = head.toString('latin1', 4, 12);
    return magic === 'n+2\0\r\n\x1a\n' || magic === 'ni2\0\r\n\x1a\n'
      ? undefined
      : `has a NIfTI-2 sizeof_hdr but the magic ${JSON.stringify(magic)}`;
  }
  return `does not start with a NIfTI header (sizeof_hdr ${sizeLE}, expected 348 or 540)`;
}
