/**
 * Some rows of a batch as compact bytes (a part), and the parts of many batches of one schema read back as one batch.
 * The write sorts the rows of a list served out of id order into ranges of ids this way (run/write/staged-rows.ts): a
 * page gives a part for each range its rows fall in, often of a few rows, so a part costs bytes copied and no Arrow
 * object (an Arrow batch per part cost more than its rows, docs/performance.md). A part holds, per column, a header
 * (whether validity bits follow, and the nulls), the validity bits when some value is null, then its values:
 * fixed-width words, bits, UTF-8 offsets and bytes, or a category's indices into its batch's dictionary (whose values
 * are given back when the part is read). Sections are 8-byte aligned.
 */
import * as arrow from 'apache-arrow';
import { utf8FromStrings } from '../../schema/encoding/utf8-from-strings.js';

/** The values of each category column's dictionary in a batch; undefined for other columns. */
export type Dictionaries = readonly (readonly (string | null)[] | undefined)[];

/** A part to read back: its bytes, and the dictionaries of the batch it came from. */
export interface Part {
  bytes: Uint8Array;
  dictionaries: Dictionaries;
}

/** A batch's columns as parts are written from them, taken once per batch. */
export interface PartSource {
  columns: readonly SourceColumn[];
  dictionaries: Dictionaries;
}

/** How a column lies in a part: bits, text, or words of `size` bytes. */
interface Layout {
  kind: 'bits' | 'words' | 'utf8';
  /** Bytes per word (0 for bits and text). */
  size: number;
}

/** The layout of a column of `type` (a category's: its indices, as words). */
function layoutOf(type: arrow.DataType): Layout {
  if (arrow.DataType.isBool(type)) return { kind: 'bits', size: 0 };
  if (arrow.DataType.isUtf8(type)) return { kind: 'utf8', size: 0 };
  const words = (arrow.DataType.isDictionary(type) ? type.indices : type) as arrow.Int64;
  return { kind: 'words', size: words.ArrayType.BYTES_PER_ELEMENT };
}

interface SourceColumn extends Layout {
  /** The column's first row in its buffers. */
  offset: number;
  /** Validity bits, when some value is null. */
  validity?: Uint8Array;
  /** The values' bytes (bits for a boolean column, UTF-8 for text, words else). */
  bytes: Buffer;
  /** Text: where each value starts in `bytes`. */
  starts?: Int32Array;
}

/** The columns of `batch`, to write parts of its rows. */
export function partSource(batch: arrow.RecordBatch): PartSource {
  const columns = batch.data.children.map((data): SourceColumn => {
    const values = data.values as Uint8Array;
    const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
    const validity = data.nullCount > 0 ? data.nullBitmap : undefined;
    const layout = layoutOf(data.type);
    const starts = layout.kind === 'utf8' ? (data.valueOffsets as Int32Array) : undefined;
    return { ...layout, offset: data.offset, validity, bytes, starts };
  });
  const dictionaries = batch.data.children.map((data) =>
    arrow.DataType.isDictionary(data.type) ? [...(data.dictionary as arrow.Vector<arrow.Utf8>)] : undefined,
  );
  return { columns, dictionaries };
}

/** Rows `rows` of the source's batch, in that order, as a part (its length a multiple of 8). */
export function encodePart(source: PartSource, rows: readonly number[]): Uint8Array {
  let size = 8;
  for (const column of source.columns) size += columnSize(column, rows);
  const out = new Uint8Array(size);
  const words = new Uint32Array(out.buffer);
  words[0] = rows.length;
  let at = 8;
  for (const column of source.columns) at = writeColumn(column, rows, out, words, at);
  return out;
}

/** The rows a part holds. */
export function partRows(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
}

/** The rows of `parts`, one part after another, as one batch of `schema` (the schema of the batches they came from). */
export function decodeParts(schema: arrow.Schema, parts: readonly Part[]): arrow.RecordBatch {
  const read = parts.map((part) => readPart(schema, part));
  const total = read.reduce((sum, part) => sum + part.rows, 0);
  const children = schema.fields.map((field, j) => joinColumn(field.type as arrow.DataType, j, total, read));
  const type = new arrow.Struct(schema.fields);
  return new arrow.RecordBatch(schema, arrow.makeData({ type, length: total, nullCount: 0, children }));
}

const aligned = (n: number) => Math.ceil(n / 8) * 8;
const bitBytes = (n: number) => aligned((n + 7) >> 3);
const isSet = (bits: Uint8Array, i: number) => ((bits[i >> 3]! >> (i & 7)) & 1) === 1;

/** The bytes of one column's sections in a part of `rows`. */
function columnSize(column: SourceColumn, rows: readonly number[]): number {
  const n = rows.length;
  const validity = column.validity === undefined ? 0 : bitBytes(n);
  if (column.kind === 'bits') return 8 + validity + bitBytes(n);
  if (column.kind === 'words') return 8 + validity + aligned(n * column.size);
  const starts = column.starts!;
  let bytes = 0;
  for (const row of rows) bytes += starts[column.offset + row + 1]! - starts[column.offset + row]!;
  return 8 + validity + aligned(4 * (n + 1)) + aligned(bytes);
}

/** Writes one column's sections of `rows` at `at` in `out` (`words` its 32-bit view); the offset after them. */
function writeColumn(column: SourceColumn, rows: readonly number[], out: Uint8Array, words: Uint32Array, at: number) {
  const { offset, bytes } = column;
  const n = rows.length;
  const header = at >> 2;
  at += 8;
  if (column.validity !== undefined) {
    let nulls = 0;
    for (let k = 0; k < n; k++) {
      if (isSet(column.validity, offset + rows[k]!)) out[at + (k >> 3)]! |= 1 << (k & 7);
      else nulls++;
    }
    [words[header], words[header + 1]] = [1, nulls];
    at += bitBytes(n);
  }
  if (column.kind === 'bits') {
    for (let k = 0; k < n; k++) if (isSet(bytes, offset + rows[k]!)) out[at + (k >> 3)]! |= 1 << (k & 7);
    return at + bitBytes(n);
  }
  if (column.kind === 'words') {
    const { size } = column;
    forRuns(rows, (k, row, length) =>
      bytes.copy(out, at + k * size, (offset + row) * size, (offset + row + length) * size),
    );
    return at + aligned(n * size);
  }
  const starts = column.starts!;
  const first = at >> 2;
  for (let k = 0; k < n; k++) {
    const i = offset + rows[k]!;
    words[first + k + 1] = words[first + k]! + starts[i + 1]! - starts[i]!;
  }
  at += aligned(4 * (n + 1));
  forRuns(rows, (k, row, length) =>
    bytes.copy(out, at + words[first + k]!, starts[offset + row], starts[offset + row + length]),
  );
  return at + aligned(words[first + n]!);
}

/** Calls `copy(k, row, length)` for each run of consecutive rows, from `rows[k]`, `length` long. */
function forRuns(rows: readonly number[], copy: (k: number, row: number, length: number) => void): void {
  for (let k = 0; k < rows.length;) {
    let length = 1;
    while (k + length < rows.length && rows[k + length] === rows[k]! + length) length++;
    copy(k, rows[k]!, length);
    k += length;
  }
}

/**
 * A part read: its rows, bytes (8-byte aligned) and their 32-bit words, and per column j at 5j: its nulls, where its
 * validity bits start (-1: none), where its values start and their size in bytes, where its text offsets start.
 */
interface ReadPart {
  rows: number;
  bytes: Buffer;
  words: Uint32Array;
  at: Int32Array;
  dictionaries: Dictionaries;
}

function readPart(schema: arrow.Schema, part: Part): ReadPart {
  const input = part.bytes.byteOffset % 8 === 0 ? part.bytes : new Uint8Array(part.bytes);
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  const n = words[0]!;
  const at = new Int32Array(5 * schema.fields.length);
  let next = 8;
  schema.fields.forEach((field, j) => {
    const [hasValidity, nulls] = [words[next >> 2]!, words[(next >> 2) + 1]!];
    next += 8;
    at[5 * j] = nulls;
    at[5 * j + 1] = hasValidity === 1 ? next : -1;
    if (hasValidity === 1) next += bitBytes(n);
    const layout = layoutOf(field.type as arrow.DataType);
    let size = layout.kind === 'bits' ? (n + 7) >> 3 : n * layout.size;
    if (layout.kind === 'utf8') {
      at[5 * j + 4] = next;
      size = words[(next >> 2) + n]!;
      next += aligned(4 * (n + 1));
    }
    [at[5 * j + 2], at[5 * j + 3]] = [next, size];
    next += aligned(size);
  });
  return { rows: n, bytes, words, at, dictionaries: part.dictionaries };
}

/** Column `j` of `total` rows from the parts, one part after another. */
function joinColumn(type: arrow.DataType, j: number, total: number, parts: readonly ReadPart[]): arrow.Data {
  const nullCount = parts.reduce((sum, part) => sum + part.at[5 * j]!, 0);
  const nullBitmap = nullCount > 0 ? joinBits(total, parts, 5 * j + 1) : undefined;
  const length = total;
  if (arrow.DataType.isBool(type))
    return arrow.makeData({ type, length, nullCount, nullBitmap, data: joinBits(total, parts, 5 * j + 2) });
  if (arrow.DataType.isDictionary(type)) {
    const { indices, dictionary } = joinCategory(j, total, parts);
    return arrow.makeData({ type, length, nullCount, nullBitmap, data: indices, dictionary });
  }
  if (arrow.DataType.isUtf8(type)) {
    const valueOffsets = new Int32Array(total + 1);
    const data = new Uint8Array(parts.reduce((sum, part) => sum + part.at[5 * j + 3]!, 0));
    let row = 0;
    for (const { rows, bytes, words, at } of parts) {
      const [offsets, base] = [at[5 * j + 4]! >> 2, valueOffsets[row]!];
      for (let k = 1; k <= rows; k++) valueOffsets[row + k] = base + words[offsets + k]!;
      bytes.copy(data, base, at[5 * j + 2], at[5 * j + 2]! + at[5 * j + 3]!);
      row += rows;
    }
    return arrow.makeData({ type, length, nullCount, nullBitmap, valueOffsets, data });
  }
  const words = new (type as arrow.Int64).ArrayType(total);
  const out = new Uint8Array(words.buffer);
  let into = 0;
  for (const { bytes, at } of parts) into += bytes.copy(out, into, at[5 * j + 2], at[5 * j + 2]! + at[5 * j + 3]!);
  return arrow.makeData({ type: type as arrow.Int64, length, nullCount, nullBitmap, data: words });
}

/** A category column's indices into one dictionary of the values its rows use (each part's looked up as it goes). */
function joinCategory(j: number, total: number, parts: readonly ReadPart[]) {
  const values: (string | null)[] = [];
  const indexOf = new Map<string | null, number>();
  const indices = new Int32Array(total);
  let row = 0;
  for (const { rows, words, at, dictionaries } of parts) {
    const own = dictionaries[j] ?? [];
    const index: number[] = [];
    const first = at[5 * j + 2]! >> 2;
    for (let k = 0; k < rows; k++, row++) {
      const i = words[first + k]!;
      let mapped = index[i];
      if (mapped === undefined && i < own.length) {
        mapped = indexOf.get(own[i]!);
        if (mapped === undefined) indexOf.set(own[i]!, (mapped = values.push(own[i]!) - 1));
        index[i] = mapped;
      }
      indices[row] = mapped ?? 0;
    }
  }
  return { indices, dictionary: new arrow.Vector([utf8FromStrings(arrow, values)]) };
}

/** Bits of `total` rows from each part's bits starting at `at[slot]` (all set where it is -1: no nulls). */
function joinBits(total: number, parts: readonly ReadPart[], slot: number): Uint8Array {
  const out = new Uint8Array((total + 7) >> 3);
  let row = 0;
  for (const { rows, bytes, at } of parts) {
    const start = at[slot]!;
    for (let k = 0; k < rows; k++, row++)
      if (start === -1 || isSet(bytes, 8 * start + k)) out[row >> 3]! |= 1 << (row & 7);
  }
  return out;
}
