/**
 * Exact equality of two Arrow values of one column, read straight from the column buffers (no decoding, no
 * rounding). Values are compared by what they mean, not how they are stored: a category is its text whether
 * dictionary-encoded or plain (parquetjs-lite writes plain strings), an integer its value whatever its width, a
 * timestamp its instant whatever its unit.
 *
 * - null equals null only.
 * - integers: exact (int64 as bigint; no trip through a float).
 * - floats: Object.is — NaN equals NaN, and -0 differs from +0: the snapshot keeps the sign of zero (the CSV writes
 *   `-0`, Parquet and Arrow keep the bits), so a diff that called them equal would hide a change the files show.
 * - timestamps: the exact count of the finest unit of the two sides (microseconds for img-etl), never through
 *   apache-arrow's `get`, which returns float milliseconds.
 * - strings, categories, JSON text: the UTF-8 bytes.
 * - booleans: the bit.
 */
import { DataType, TimeUnit, type Data, type Vector } from 'apache-arrow';

/** What a column's values are compared as; two sides compare only within one family. */
export type ValueFamily = 'integer' | 'float' | 'boolean' | 'timestamp' | 'string';

/** Whether row `i` of `a` and row `j` of `b` (column data of one family) hold the same value. */
export type ValuesEqual = (a: Data, i: number, b: Data, j: number) => boolean;

/** The family of an Arrow type, or undefined when diff cannot compare values of that type. */
export function valueFamily(type: DataType): ValueFamily | undefined {
  if (DataType.isInt(type)) return 'integer';
  if (DataType.isFloat(type)) return 'float';
  if (DataType.isBool(type)) return 'boolean';
  if (DataType.isTimestamp(type)) return 'timestamp';
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type)) return 'string';
  if (DataType.isDictionary(type) && (DataType.isUtf8(type.dictionary) || DataType.isLargeUtf8(type.dictionary)))
    return 'string';
  return undefined;
}

/** The equality of a column whose sides have these types, or undefined when their families differ (or are unknown). */
export function columnEquality(oldType: DataType, newType: DataType): ValuesEqual | undefined {
  const family = valueFamily(oldType);
  if (family === undefined || family !== valueFamily(newType)) return undefined;
  switch (family) {
    case 'integer':
      return integerEqual;
    case 'float':
      return floatEqual;
    case 'boolean':
      return booleanEqual;
    case 'timestamp':
      return timestampEqual(oldType as DataType & { unit: TimeUnit }, newType as DataType & { unit: TimeUnit });
    case 'string':
      return stringEqual;
  }
}

/**
 * Whether row `i` is not null: its validity bit (the bitmap is not sliced with the data; the offset counts bits).
 * Faster than `Data.getValid`, which checks for unions first on every call.
 */
function isValid(data: Data, i: number): boolean {
  const bitmap = data.nullBitmap as Uint8Array | undefined;
  if (bitmap === undefined || bitmap.length === 0) return true;
  const index = data.offset + i;
  return (bitmap[index >> 3]! & (1 << (index & 7))) !== 0;
}

function integerEqual(a: Data, i: number, b: Data, j: number): boolean {
  const va = isValid(a, i);
  const vb = isValid(b, j);
  if (!va || !vb) return va === vb;
  const x = (a.values as ArrayLike<number | bigint>)[i]!;
  const y = (b.values as ArrayLike<number | bigint>)[j]!;
  return typeof x === typeof y ? x === y : BigInt(x) === BigInt(y);
}

function floatEqual(a: Data, i: number, b: Data, j: number): boolean {
  const va = isValid(a, i);
  const vb = isValid(b, j);
  if (!va || !vb) return va === vb;
  return Object.is(floatAt(a, i), floatAt(b, j));
}

/** A float value; half floats are stored as their bits in a Uint16Array. */
function floatAt(data: Data, i: number): number {
  const raw = (data.values as ArrayLike<number>)[i]!;
  return data.values instanceof Uint16Array ? halfToNumber(raw) : raw;
}

function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

function booleanEqual(a: Data, i: number, b: Data, j: number): boolean {
  const va = isValid(a, i);
  const vb = isValid(b, j);
  if (!va || !vb) return va === vb;
  return bitAt(a, i) === bitAt(b, j);
}

function bitAt(data: Data, i: number): boolean {
  const index = data.offset + i; // boolean buffers are not sliced with the data; the offset counts bits
  return ((data.values as Uint8Array)[index >> 3]! & (1 << (index & 7))) !== 0;
}

/** Per unit: how many nanoseconds one tick is. */
const NANOS_PER_TICK: Record<TimeUnit, bigint> = {
  [TimeUnit.SECOND]: 1_000_000_000n,
  [TimeUnit.MILLISECOND]: 1_000_000n,
  [TimeUnit.MICROSECOND]: 1_000n,
  [TimeUnit.NANOSECOND]: 1n,
};

function timestampEqual(oldType: { unit: TimeUnit }, newType: { unit: TimeUnit }): ValuesEqual {
  const scaleA = NANOS_PER_TICK[oldType.unit];
  const scaleB = NANOS_PER_TICK[newType.unit];
  const same = scaleA === scaleB;
  return (a, i, b, j) => {
    const va = isValid(a, i);
    const vb = isValid(b, j);
    if (!va || !vb) return va === vb;
    const x = (a.values as BigInt64Array)[i]!;
    const y = (b.values as BigInt64Array)[j]!;
    return same ? x === y : x * scaleA === y * scaleB;
  };
}

/** Where a string's UTF-8 bytes are: `bytes[start..end)`. */
interface StringRef {
  bytes: Uint8Array;
  start: number;
  end: number;
}

const REF_A: StringRef = { bytes: new Uint8Array(0), start: 0, end: 0 };
const REF_B: StringRef = { bytes: new Uint8Array(0), start: 0, end: 0 };

function stringEqual(a: Data, i: number, b: Data, j: number): boolean {
  const va = stringRef(a, i, REF_A);
  const vb = stringRef(b, j, REF_B);
  if (!va || !vb) return va === vb;
  const length = REF_A.end - REF_A.start;
  if (length !== REF_B.end - REF_B.start) return false;
  const x = REF_A.bytes;
  const y = REF_B.bytes;
  for (let k = 0, p = REF_A.start, q = REF_B.start; k < length; k++, p++, q++) if (x[p] !== y[q]) return false;
  return true;
}

/** Points `ref` at row `i`'s bytes (through the dictionary for a dictionary column); false when the value is null. */
function stringRef(data: Data, i: number, ref: StringRef): boolean {
  if (!isValid(data, i)) return false;
  if (data.dictionary !== undefined) {
    const key = Number((data.values as ArrayLike<number | bigint>)[i]!);
    const [chunk, index] = locate(data.dictionary as Vector<DataType>, key); // apache-arrow types it Vector<any>
    return stringRef(chunk, index, ref);
  }
  const offsets = data.valueOffsets as ArrayLike<number | bigint>;
  ref.bytes = data.values as Uint8Array;
  ref.start = Number(offsets[i]!);
  ref.end = Number(offsets[i + 1]!);
  return true;
}

/** The chunk of a (dictionary) vector that holds `index`, and the index within it. */
function locate(vector: Vector<DataType>, index: number): [Data<DataType>, number] {
  const chunks = vector.data;
  if (chunks.length === 1) return [chunks[0]!, index];
  let rest = index;
  for (const chunk of chunks) {
    if (rest < chunk.length) return [chunk, rest];
    rest -= chunk.length;
  }
  throw new RangeError(`diff: dictionary key ${index} is outside a dictionary of ${vector.length} values`);
}
