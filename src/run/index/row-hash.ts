/**
 * A 64-bit hash of a row's values as they are written, for the snapshot index (snapshot-index.ts): equal values give
 * equal hashes whatever the record's key order as served, and a value that changes changes the hash but for one chance
 * in 2^64. Two 32-bit lanes, each a multiply-xorshift over the values (strings two UTF-16 units at a time), finished by
 * murmur3's avalanche; each value is tagged with its type and strings with their length, so that `"1"` and `1`, or
 * `"ab" + "c"` and `"a" + "bc"` in two columns, hash apart. Values compare as the diff compares them: an integer
 * whatever its sign of zero, a float by its bits (-0 is not 0; every NaN is one), a timestamp by its microseconds.
 */
import { IMAGES } from '../../schema/columns.js';
import { readRow } from '../../schema/read-row.js';
import type { Row, RowValue } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { murmurFinaliser } from '../../text/murmur-finaliser.js';

/** Names the hash in the index file: change it whenever the hash of the same values would change. */
export const ROW_HASH_VERSION = 'img-etl-row-hash-1';

const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const TAG_NULL = 1;
const TAG_STRING = 2;
const TAG_NUMBER = 3;
const TAG_TRUE = 4;
const TAG_FALSE = 5;
const TAG_BIGINT = 6;

const F64 = new Float64Array(1);
const F64_WORDS = new Uint32Array(F64.buffer);
const I64 = new BigInt64Array(1);
const I64_WORDS = new Uint32Array(I64.buffer);

/** Hashes rows of one table (default the images), in its column order. */
export class RowHasher {
  private readonly values: (RowValue | undefined)[];
  private readonly integer: boolean[];

  constructor(private readonly table: Table = IMAGES) {
    this.values = new Array<RowValue | undefined>(table.names.length);
    this.integer = table.columns.map((c) => c.type.kind === 'int64');
  }

  /** Hashes `row` into `out[2 * at]` (low word) and `out[2 * at + 1]` (high word). */
  hash(row: Row, out: Uint32Array, at: number): void {
    readRow(row, this.values, this.table.names);
    hashValues(this.values, this.integer, out, at);
  }
}

/**
 * The hash of one row's values. One function with its state in local variables, the mixing step written out where it
 * is used: as methods with the state in fields, V8 ran it several times slower (docs/performance.md, "The row hash").
 */
function hashValues(v: readonly (RowValue | undefined)[], integer: readonly boolean[], out: Uint32Array, at: number) {
  let a = 0x2545f491;
  let b = 0x6c8e9cf5;
  for (let k = 0; k < v.length; k++) {
    const value = v[k];
    let tag: number;
    let w1 = 0;
    let w2 = 0;
    if (value === null || value === undefined) tag = TAG_NULL;
    else if (typeof value === 'string') {
      const n = value.length;
      tag = TAG_STRING;
      w1 = n;
      let i = 0;
      for (; i + 1 < n; i += 2) {
        const w = value.charCodeAt(i) | (value.charCodeAt(i + 1) << 16);
        a = Math.imul(a ^ w, P1);
        a ^= a >>> 15;
        b = Math.imul(b ^ w, P2);
        b ^= b >>> 13;
      }
      if (i < n) w2 = value.charCodeAt(i) + 1;
    } else if (typeof value === 'number') {
      tag = TAG_NUMBER;
      F64[0] = Number.isNaN(value) ? NaN : integer[k] && value === 0 ? 0 : value;
      w1 = F64_WORDS[0]!;
      w2 = F64_WORDS[1]!;
    } else if (typeof value === 'boolean') tag = value ? TAG_TRUE : TAG_FALSE;
    else {
      tag = TAG_BIGINT;
      I64[0] = value;
      w1 = I64_WORDS[0]!;
      w2 = I64_WORDS[1]!;
    }
    // The value's tag and its words (a string's length and odd last unit) after its characters.
    a = Math.imul(a ^ tag, P1);
    a = Math.imul(a ^ (a >>> 15) ^ w1, P1);
    a = Math.imul(a ^ (a >>> 15) ^ w2, P1);
    a ^= a >>> 15;
    b = Math.imul(b ^ tag, P2);
    b = Math.imul(b ^ (b >>> 13) ^ w1, P2);
    b = Math.imul(b ^ (b >>> 13) ^ w2, P2);
    b ^= b >>> 13;
  }
  out[2 * at] = murmurFinaliser(a ^ Math.imul(v.length, P2));
  out[2 * at + 1] = murmurFinaliser(b ^ Math.imul(v.length, P1));
}
