/**
 * A snapshot's index (`images.index`, written with the images): every row's id and the 64-bit hash of its values
 * (row-hash.ts), in file order, which is ascending id order. Two snapshots' indexes tell which records were added,
 * removed or are the same by a merge of their ids and a comparison of hashes, without decoding the data files; only
 * the rows whose hashes differ need their values read (diff/index-diff.ts).
 *
 * The file, little-endian: the 8 bytes `IMGETLIX`, a uint32 header length, the header (JSON: the hash's version and
 * the images' schema version), zero bytes to a multiple of 8, then 16 bytes a row: the id (int64) and the hash
 * (uint64). 8 MB for 500,000 records. It is written as the rows pass and read a chunk at a time, so memory holds one
 * chunk of it (1 MiB), never the whole index.
 */
import { endianness } from 'node:os';
import { IMAGES } from '../../schema/columns.js';
import { ROW_HASH_VERSION } from './row-hash.js';

const MAGIC = 'IMGETLIX';
/** Rows in a chunk written or read at once (1 MiB). */
export const INDEX_CHUNK_ROWS = 1 << 16;
/** 32-bit words a row: the id's two, the hash's two. */
export const INDEX_ROW_WORDS = 4;
/** 2^32: an id is its low word plus its high word times this. */
export const TWO_32 = 4294967296;

/**
 * The words of `bytes` in little-endian order, swapped in place when the host is big-endian (a Uint32Array is in the
 * host's order; the file is little-endian wherever it is written or read). Swapping twice gives the words back.
 */
export function littleEndianWords(bytes: Uint8Array, hostBigEndian = endianness() === 'BE'): Uint8Array {
  if (hostBigEndian) Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).swap32();
  return bytes;
}

/**
 * The header's text, the same in every index this version writes of a table of that schema version (the images', or a
 * pipeline's with its derived columns, whose hashes cover those columns too).
 */
export function indexHeaderBytes(schemaVersion: string = IMAGES.schemaVersion): Buffer {
  const json = Buffer.from(JSON.stringify({ hash: ROW_HASH_VERSION, schema_version: schemaVersion }), 'utf8');
  const head = Buffer.alloc(align8(12 + json.length));
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  return head;
}

export function align8(n: number): number {
  return (n + 7) & ~7;
}
