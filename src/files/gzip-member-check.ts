/**
 * Checking that bytes are exactly one complete gzip member (RFC 1952), as they arrive: its header; its deflate data,
 * inflated by zlib; its CRC-32 and length trailer against what inflated; and nothing after it. Node's gunzip reads on
 * past the end of a member (a second member is inflated as if it were more of the first, zeros after it are skipped),
 * so the member is framed here and only its deflate data goes to zlib, whose `bytesWritten` (the input it consumed)
 * says where that data ends.
 */
import { crc32, createInflateRaw } from 'node:zlib';

/** A check fed a file's bytes in order. */
export interface GzipMemberCheck {
  /** Takes the next bytes (resolves when the inflater has taken them). */
  write(chunk: Buffer): Promise<void>;
  /** Ends the bytes; resolves to why they are not one complete gzip member, or undefined when they are. */
  finish(): Promise<string | undefined>;
  /** Drops the check; its inflater is freed now. */
  cancel(): void;
}

const TRAILER_BYTES = 8;
/** A header longer than this (a file name or comment without its end) is not waited for. */
const MAX_HEADER_BYTES = 64 * 1024;
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/** A check of one gzip member; `onData` is given the inflated bytes in order. */
export function gzipMemberCheck(onData: (chunk: Buffer) => void): GzipMemberCheck {
  const inflate = createInflateRaw();
  let crc = 0;
  let inflated = 0;
  let broken: string | undefined;
  let inflateEnded = false;
  const settled = new Promise<void>((resolve) => {
    inflate.on('data', (chunk: Buffer) => {
      crc = crc32(chunk, crc);
      inflated += chunk.length;
      onData(chunk);
    });
    inflate.once('end', () => {
      inflateEnded = true;
      resolve();
    });
    inflate.once('error', (err: Error) => {
      broken ??= `is not a complete gzip stream (${err.message})`;
      resolve();
    });
  });
  let phase: 'header' | 'deflate' | 'trailer' = 'header';
  let head = Buffer.alloc(0);
  let fed = 0; // bytes given to the inflater
  const trailer: Buffer[] = [];
  let trailerBytes = 0;
  let after = 0; // bytes after the trailer
  let afterHead = Buffer.alloc(0); // their first two (a second member starts 1f 8b)

  const toTrailer = (bytes: Buffer): void => {
    const take = Math.min(TRAILER_BYTES - trailerBytes, bytes.length);
    if (take > 0) trailer.push(bytes.subarray(0, take));
    trailerBytes += take;
    const rest = bytes.subarray(take);
    if (afterHead.length < 2) afterHead = Buffer.concat([afterHead, rest.subarray(0, 2 - afterHead.length)]);
    after += rest.length;
  };
  const toInflate = async (bytes: Buffer): Promise<void> => {
    fed += bytes.length;
    await Promise.race([new Promise<void>((resolve) => inflate.write(bytes, () => resolve())), settled]);
    const unread = fed - inflate.bytesWritten; // input the inflater left: its deflate data ended before
    if (broken !== undefined || unread <= 0) return;
    phase = 'trailer';
    toTrailer(bytes.subarray(bytes.length - unread));
  };

  return {
    async write(chunk) {
      if (broken !== undefined) return;
      if (phase === 'trailer') return toTrailer(chunk);
      if (phase === 'deflate') return toInflate(chunk);
      head = Buffer.concat([head, chunk]);
      const length = headerLength(head);
      if (typeof length === 'object') broken = length.problem;
      if (typeof length !== 'number') return;
      phase = 'deflate';
      const rest = head.subarray(length);
      head = Buffer.alloc(0);
      if (rest.length > 0) await toInflate(rest);
    },
    async finish() {
      if (broken !== undefined) return broken;
      if (phase === 'header') return `is not a complete gzip stream (${head.length} bytes, a gzip header cut short)`;
      if (!inflateEnded) inflate.end();
      await settled;
      if (broken !== undefined) return broken;
      if (trailerBytes < TRAILER_BYTES)
        return 'is not a complete gzip stream (its CRC-32 and length trailer cut short)';
      const end = Buffer.concat(trailer);
      if (end.readUInt32LE(0) !== crc) return 'is not a complete gzip stream (its CRC-32 does not match its data)';
      if (end.readUInt32LE(4) !== inflated % 2 ** 32)
        return `is not a complete gzip stream (its length trailer says ${end.readUInt32LE(4)} bytes, not ${inflated})`;
      if (after === 0) return undefined;
      const second = afterHead[0] === 0x1f && afterHead[1] === 0x8b;
      const what = second ? `a second gzip member (${after} bytes)` : `${after} bytes that are not gzip`;
      return `is a complete gzip member followed by ${what}`;
    },
    cancel() {
      inflate.destroy();
    },
  };
}

/**
 * The length of the gzip header at the start of `head`; undefined when it needs more bytes; why it is not a gzip
 * header.
 */
function headerLength(head: Buffer): number | undefined | { problem: string } {
  const problem = (what: string): { problem: string } => ({ problem: `is not a complete gzip stream (${what})` });
  if (head.length >= 2 && (head[0] !== 0x1f || head[1] !== 0x8b))
    return problem('it does not start with the gzip magic 1f 8b');
  if (head.length < 10) return undefined;
  if (head[2] !== 8) return problem(`compression method ${head[2]}, not deflate`);
  const flags = head[3]!;
  if ((flags & 0xe0) !== 0) return problem(`reserved header flags set: ${flags}`);
  let at = 10;
  if ((flags & FEXTRA) !== 0) {
    if (head.length < at + 2) return more(head);
    at += 2 + head.readUInt16LE(at);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if ((flags & flag) === 0) continue;
    const zero = head.indexOf(0, at);
    if (zero === -1) return more(head);
    at = zero + 1;
  }
  if ((flags & FHCRC) !== 0) {
    if (head.length < at + 2) return more(head);
    if (head.readUInt16LE(at) !== (crc32(head.subarray(0, at)) & 0xffff))
      return problem('its header CRC does not match');
    at += 2;
  }
  return head.length < at ? more(head) : at;
}

/** Undefined (more bytes needed) unless the header has grown too long to wait for. */
function more(head: Buffer): undefined | { problem: string } {
  if (head.length <= MAX_HEADER_BYTES) return undefined;
  return { problem: `is not a complete gzip stream (a gzip header longer than ${MAX_HEADER_BYTES} bytes)` };
}
