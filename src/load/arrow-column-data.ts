/**
 * Arrow column Data built straight from rows into typed arrays and validity bitmaps (no per-value builders):
 * one function per column kind except category (see category-dictionary.ts). A value of the wrong type is an error.
 */
import { Bool, Float64, Int64, TimestampMicrosecond, Utf8, makeData, type Data } from 'apache-arrow';
import type { Row } from '../schema/row.js';
import { invalidValue, type BatchPlace } from './invalid-value.js';
import { LoadError } from './load-error.js';

const TWO_32 = 4294967296;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export type { BatchPlace };

/** Int64 column from safe-integer numbers; each value is split into two 32-bit words (faster than BigInt()). */
export function int64Data(rows: readonly Row[], name: string, place: BatchPlace): Data<Int64> {
  const n = rows.length;
  const values = new BigInt64Array(n);
  const words = new Int32Array(values.buffer); // little-endian, like Arrow itself
  const validity = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = rows[i]![name];
    if (v === null) {
      nulls++;
      continue;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw invalidValue(rows, i, name, v, 'a safe integer', place);
    const high = Math.floor(v / TWO_32);
    words[2 * i] = v - high * TWO_32;
    words[2 * i + 1] = high;
    validity[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new Int64(), length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data: values });
}

/** Float64 column from numbers, bit for bit (-0 stays -0). */
export function float64Data(rows: readonly Row[], name: string, place: BatchPlace): Data<Float64> {
  const n = rows.length;
  const values = new Float64Array(n);
  const validity = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = rows[i]![name];
    if (v === null) {
      nulls++;
      continue;
    }
    if (typeof v !== 'number') throw invalidValue(rows, i, name, v, 'a number', place);
    values[i] = v;
    validity[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new Float64(), length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data: values });
}

/** Bool column: values and validity as bitmaps. */
export function boolData(rows: readonly Row[], name: string, place: BatchPlace): Data<Bool> {
  const n = rows.length;
  const values = new Uint8Array((n + 7) >> 3);
  const validity = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = rows[i]![name];
    if (v === null) {
      nulls++;
      continue;
    }
    if (typeof v !== 'boolean') throw invalidValue(rows, i, name, v, 'a boolean', place);
    if (v) values[i >> 3]! |= 1 << (i & 7);
    validity[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new Bool(), length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data: values });
}

/** Timestamp(µs, UTC) column from bigint microseconds, so that microseconds survive (Arrow's builders take milliseconds). */
export function timestampData(rows: readonly Row[], name: string, place: BatchPlace): Data<TimestampMicrosecond> {
  const n = rows.length;
  const values = new BigInt64Array(n);
  const validity = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = rows[i]![name];
    if (v === null) {
      nulls++;
      continue;
    }
    if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) throw invalidValue(rows, i, name, v, 'bigint microseconds within int64', place);
    values[i] = v;
    validity[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new TimestampMicrosecond('UTC'), length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data: values });
}

/** Utf8 column from strings. */
export function utf8Data(rows: readonly Row[], name: string, place: BatchPlace): Data<Utf8> {
  const n = rows.length;
  const strings = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const v = rows[i]![name];
    if (v !== null && typeof v !== 'string') throw invalidValue(rows, i, name, v, 'a string', place);
    strings[i] = v;
  }
  return utf8FromStrings(strings);
}

/**
 * Utf8 Data from strings and nulls. The strings are joined and encoded at once; when the bytes are as many as the
 * UTF-16 units (all ASCII, the usual case for links and codes), the offsets are the string lengths. Otherwise each
 * string is encoded on its own to find its offsets.
 */
export function utf8FromStrings(strings: readonly (string | null)[]): Data<Utf8> {
  const n = strings.length;
  const offsets = new Int32Array(n + 1);
  const validity = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  let joined = '';
  let units = 0;
  for (let i = 0; i < n; i++) {
    const s = strings[i];
    if (s === null || s === undefined) nulls++;
    else {
      joined += s;
      units += s.length;
      validity[i >> 3]! |= 1 << (i & 7);
    }
    offsets[i + 1] = units;
  }
  const size = Buffer.byteLength(joined, 'utf8');
  if (size > 0x7fffffff) throw new LoadError('LOAD_INVALID_VALUE', `load: a batch's strings take ${size} bytes, more than a Utf8 column holds`);
  const bytes = new Uint8Array(size);
  if (size === units) UTF8.encodeInto(joined, bytes);
  else {
    const target = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let end = 0;
    for (let i = 0; i < n; i++) {
      const s = strings[i];
      if (s !== null && s !== undefined && s.length > 0) end += target.write(s, end, 'utf8');
      offsets[i + 1] = end;
    }
  }
  return makeData({ type: new Utf8(), length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, valueOffsets: offsets, data: bytes });
}

const UTF8 = new TextEncoder();
