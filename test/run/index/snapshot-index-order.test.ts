/**
 * images.index is little-endian on every host: its words are swapped on a big-endian one when written and again when
 * read (the end-to-end tests read the file's bytes as little-endian on this little-endian machine).
 */
import { describe, expect, it } from 'vitest';
import { littleEndianWords } from '../../../src/run/index/snapshot-index.js';

describe('littleEndianWords', () => {
  const words = () => new Uint32Array([0x01020304, 0xa0b0c0d0]);

  it('leaves the bytes as they are on a little-endian host', () => {
    const bytes = new Uint8Array(words().buffer);
    const before = [...bytes];
    expect([...littleEndianWords(bytes, false)]).toEqual(before);
  });

  it('reverses each 4-byte word on a big-endian host, and swapping twice gives the bytes back', () => {
    const bytes = Uint8Array.from([1, 2, 3, 4, 0xa0, 0xb0, 0xc0, 0xd0]);
    expect([...littleEndianWords(bytes, true)]).toEqual([4, 3, 2, 1, 0xd0, 0xc0, 0xb0, 0xa0]);
    expect([...littleEndianWords(bytes, true)]).toEqual([1, 2, 3, 4, 0xa0, 0xb0, 0xc0, 0xd0]);
  });

  it('swaps only the part of a larger buffer it is given', () => {
    const backing = Uint8Array.from([9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9]);
    littleEndianWords(backing.subarray(4, 8), true);
    expect([...backing]).toEqual([9, 9, 9, 9, 4, 3, 2, 1, 9, 9, 9, 9]);
  });
});
