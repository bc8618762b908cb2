/**
 * gzipMemberCheck: exactly one complete gzip member, whatever the chunks its bytes arrive in (one byte at a time, a
 * chunk ending exactly where the deflate data ends, one chunk for all); what follows a member is named.
 */
import { crc32, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipMemberCheck } from '../../src/files/gzip-member-check.js';

const DATA = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7 + (i >> 5)) & 0xff));
const MEMBER = gzipSync(DATA);
/** Where the deflate data of MEMBER ends (its header has 10 bytes, its trailer 8). */
const DEFLATE_END = MEMBER.length - 8;

/** Runs the check over `bytes` cut at `cuts`; what it says and the bytes it inflated. */
async function check(bytes: Buffer, cuts: readonly number[]): Promise<{ problem: string | undefined; out: Buffer }> {
  const out: Buffer[] = [];
  const member = gzipMemberCheck((chunk) => out.push(chunk));
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length]) {
    await member.write(bytes.subarray(at, cut));
    at = cut;
  }
  return { problem: await member.finish(), out: Buffer.concat(out) };
}

/** Cuts every `size` bytes. */
const every = (size: number, length: number): number[] =>
  Array.from({ length: length / size }, (_, i) => (i + 1) * size);

const CHUNKINGS: [string, (length: number) => number[]][] = [
  ['one chunk', () => []],
  ['bytes one at a time', (length) => every(1, length)],
  ['7-byte chunks', (length) => every(7, length)],
  ['a chunk ending where the deflate data ends', () => [DEFLATE_END]],
  ['a chunk ending where the header ends', () => [10]],
  ['a chunk ending where the trailer ends', () => [MEMBER.length]],
];

describe.each(CHUNKINGS)('in %s', (_, cuts) => {
  const run = (bytes: Buffer): Promise<{ problem: string | undefined; out: Buffer }> =>
    check(bytes, cuts(bytes.length));

  it('one member is fine and inflates to its data', async () => {
    const { problem, out } = await run(MEMBER);
    expect(problem).toBeUndefined();
    expect(out.equals(DATA)).toBe(true);
  });

  it('a second member after it is named, with its size', async () => {
    const junk = gzipSync(Buffer.from('junk'));
    expect((await run(Buffer.concat([MEMBER, junk]))).problem).toBe(
      `is a complete gzip member followed by a second gzip member (${junk.length} bytes)`,
    );
  });

  it('bytes after it that are not gzip (zeros too) are named', async () => {
    expect((await run(Buffer.concat([MEMBER, Buffer.alloc(3)]))).problem).toBe(
      'is a complete gzip member followed by 3 bytes that are not gzip',
    );
    expect((await run(Buffer.concat([MEMBER, Buffer.from([0x1f])]))).problem).toBe(
      'is a complete gzip member followed by 1 bytes that are not gzip',
    );
  });

  it('a member cut short is not complete: in its deflate data, its trailer, right after its deflate data', async () => {
    expect((await run(MEMBER.subarray(0, 200))).problem).toMatch(/^is not a complete gzip stream \(/);
    expect((await run(MEMBER.subarray(0, MEMBER.length - 3))).problem).toBe(
      'is not a complete gzip stream (its CRC-32 and length trailer cut short)',
    );
    expect((await run(MEMBER.subarray(0, DEFLATE_END))).problem).toBe(
      'is not a complete gzip stream (its CRC-32 and length trailer cut short)',
    );
    expect((await run(MEMBER.subarray(0, 6))).problem).toBe(
      'is not a complete gzip stream (6 bytes, a gzip header cut short)',
    );
  });

  it('a trailer that does not match the data is named', async () => {
    const badCrc = Buffer.from(MEMBER);
    badCrc[DEFLATE_END] = badCrc[DEFLATE_END]! ^ 1;
    expect((await run(badCrc)).problem).toBe('is not a complete gzip stream (its CRC-32 does not match its data)');
    const badLength = Buffer.from(MEMBER);
    badLength.writeUInt32LE(DATA.length + 1, DEFLATE_END + 4);
    expect((await run(badLength)).problem).toBe(
      `is not a complete gzip stream (its length trailer says ${DATA.length + 1} bytes, not ${DATA.length})`,
    );
  });
});

describe('the header', () => {
  /** MEMBER with a header carrying an extra field, a name, a comment and its own CRC. */
  function fullHeader(crcOk = true): Buffer {
    const fixed = Buffer.from([0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 3]);
    const extra = Buffer.from([4, 0, 0x41, 0x42, 2, 0]); // length 4: one subfield "AB" of 2 bytes
    const head = Buffer.concat([fixed, extra, Buffer.from('map.nii\0', 'latin1'), Buffer.from('a comment\0')]);
    const hcrc = Buffer.alloc(2);
    hcrc.writeUInt16LE((crc32(head) & 0xffff) ^ (crcOk ? 0 : 1));
    return Buffer.concat([head, hcrc, MEMBER.subarray(10)]);
  }

  it('with every optional field is read past, in any chunks', async () => {
    for (const size of [1, 5, 1000]) {
      const bytes = fullHeader();
      const { problem, out } = await check(bytes, every(size, bytes.length));
      expect(problem, String(size)).toBeUndefined();
      expect(out.equals(DATA)).toBe(true);
    }
  });

  it('that is not gzip, or whose CRC is wrong, is named', async () => {
    expect((await check(Buffer.from('not gzip at all'), [])).problem).toBe(
      'is not a complete gzip stream (it does not start with the gzip magic 1f 8b)',
    );
    expect((await check(fullHeader(false), [])).problem).toBe(
      'is not a complete gzip stream (its header CRC does not match)',
    );
    const stored = Buffer.from(MEMBER);
    stored[2] = 0;
    expect((await check(stored, [])).problem).toBe('is not a complete gzip stream (compression method 0, not deflate)');
  });
});
