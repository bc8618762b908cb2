/**
 * Checking that bytes are exactly one complete gzip member (RFC 1952), as they arrive: its header; its deflate data,
 * inflated by zlib; its CRC-32 and length trailer against what inflated; and nothing after it. Node's gunzip reads on
 * past the end of a member (a second member is inflated as if it were more of the first, zeros after it are skipped),
 * so the member is framed here and only its deflate data goes to zlib, whose `bytesWritten` (the input it consumed)
 * says where that data ends.
 */
import { crc32, createInflateRaw } from 'node:zlib';

/** A check fed a file's bytes in order, whose verdict is a `T`. */
export interface BytesCheck<T> {
  /** Takes the next bytes (resolves when the check can take more). */
  write(chunk: Buffer): Promise<void>;
  /** Ends the bytes and says what the check found. */
  finish(): Promise<T>;
  /** Drops the check (a download failed part way); what it holds is freed now. */
  cancel(): void;
}

const TRAILER_BYTES = 8;
/** A header longer than this (a file name or comment without its end) is not waited for. */
const MAX_HEADER_BYTES = 64 * 1024;
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/**
 * A check of one gzip member, whose verdict is why the bytes are not one complete gzip member (undefined when they
 * are); `onData` is given the inflated bytes in order.
 */
export function gzipMemberCheck(onData: (chunk: Buffer) => void): BytesCheck<string | undefined> {
  const member = startMember(onData);
  return {
    write: (chunk) => writeMember(member, chunk),
    finish: () => memberVerdict(member),
    cancel() {
      member.inflate.destroy();
    },
  };
}

/**
 * A member being checked: its inflater and what it inflated (CRC-32 and length), why the bytes are not one complete
 * member once known, and where the bytes fed so far stand in its frame (see startMember).
 */
type Member = ReturnType<typeof startMember>;

/** A member at its first byte, its inflater's data, end and failure recorded on it. */
function startMember(onData: (chunk: Buffer) => void) {
  const inflate = createInflateRaw();
  let settle = (): void => undefined;
  const member = {
    inflate,
    /** Resolves when the inflater ends or fails. */
    settled: new Promise<void>((resolve) => (settle = resolve)),
    ...{ crc: 0, inflated: 0, broken: undefined as string | undefined, inflateEnded: false },
    phase: 'header' as 'header' | 'deflate' | 'trailer',
    /** The header's bytes so far; bytes given to the inflater; the trailer's. */
    ...{ head: Buffer.alloc(0), fed: 0, trailer: [] as Buffer[], trailerBytes: 0 },
    /** Bytes after the trailer, and their first two (a second member starts 1f 8b). */
    after: 0,
    afterHead: Buffer.alloc(0),
  };
  inflate.on('data', (chunk: Buffer) => {
    member.crc = crc32(chunk, member.crc);
    member.inflated += chunk.length;
    onData(chunk);
  });
  inflate.once('end', () => {
    member.inflateEnded = true;
    settle();
  });
  inflate.once('error', (err: Error) => {
    member.broken ??= `is not a complete gzip stream (${err.message})`;
    settle();
  });
  return member;
}

/** Takes the next bytes: into the header until it is whole, then the inflater, then the trailer and what follows. */
async function writeMember(member: Member, chunk: Buffer): Promise<void> {
  if (member.broken !== undefined) return;
  if (member.phase === 'trailer') return toTrailer(member, chunk);
  if (member.phase === 'deflate') return toInflate(member, chunk);
  member.head = Buffer.concat([member.head, chunk]);
  const length = headerLength(member.head);
  if (typeof length === 'object') member.broken = length.problem;
  if (typeof length !== 'number') return;
  member.phase = 'deflate';
  const rest = member.head.subarray(length);
  member.head = Buffer.alloc(0);
  if (rest.length > 0) await toInflate(member, rest);
}

/** Gives bytes to the inflater; what it leaves (its deflate data ended before) goes to the trailer. */
async function toInflate(member: Member, bytes: Buffer): Promise<void> {
  const inflate = member.inflate;
  member.fed += bytes.length;
  await Promise.race([new Promise<void>((resolve) => inflate.write(bytes, () => resolve())), member.settled]);
  const unread = member.fed - inflate.bytesWritten; // input the inflater left: its deflate data ended before
  if (member.broken !== undefined || unread <= 0) return;
  member.phase = 'trailer';
  toTrailer(member, bytes.subarray(bytes.length - unread));
}

/** Takes the trailer's bytes; counts those after it, keeping their first two. */
function toTrailer(member: Member, bytes: Buffer): void {
  const take = Math.min(TRAILER_BYTES - member.trailerBytes, bytes.length);
  if (take > 0) member.trailer.push(bytes.subarray(0, take));
  member.trailerBytes += take;
  const rest = bytes.subarray(take);
  const afterHead = member.afterHead;
  if (afterHead.length < 2) member.afterHead = Buffer.concat([afterHead, rest.subarray(0, 2 - afterHead.length)]);
  member.after += rest.length;
}

/** Ends the bytes; why they are not one complete gzip member, or undefined when they are. */
async function memberVerdict(member: Member): Promise<string | undefined> {
  if (member.broken !== undefined) return member.broken;
  if (member.phase === 'header')
    return `is not a complete gzip stream (${member.head.length} bytes, a gzip header cut short)`;
  if (!member.inflateEnded) member.inflate.end();
  await member.settled;
  if (member.broken !== undefined) return member.broken;
  if (member.trailerBytes < TRAILER_BYTES)
    return 'is not a complete gzip stream (its CRC-32 and length trailer cut short)';
  const end = Buffer.concat(member.trailer);
  if (end.readUInt32LE(0) !== member.crc) return 'is not a complete gzip stream (its CRC-32 does not match its data)';
  const length = end.readUInt32LE(4);
  if (length !== member.inflated % 2 ** 32)
    return `is not a complete gzip stream (its length trailer says ${length} bytes, not ${member.inflated})`;
  if (member.after === 0) return undefined;
  const second = member.afterHead[0] === 0x1f && member.afterHead[1] === 0x8b;
  const what = second ? `a second gzip member (${member.after} bytes)` : `${member.after} bytes that are not gzip`;
  return `is a complete gzip member followed by ${what}`;
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
