/**
 * The write's Arrow stage over staged pages: picks rows out of the pages' record batches (each page encoded once, when
 * it was staged: page-columns.ts) into one batch, column by column, copying bytes rather than rebuilding values. The
 * batch equals, byte for byte, the one ArrowBatchBuilder builds from the same rows: numbers, timestamps and booleans
 * are copied as bits, text as its UTF-8 bytes, and a category goes through its type's own encoder, so that its one
 * dictionary grows across the batches exactly as when rows are encoded.
 */
import * as arrow from 'apache-arrow';
import type { ArrowEncoder } from '../schema/column-type.js';
import type { RowValue } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { arrowSchema } from './arrow-schema.js';

/** Rows to pick: row `rows[k]` of `batches[k]`, for each k, in order. */
export interface Picks {
  batches: readonly arrow.RecordBatch[];
  rows: readonly number[];
}

/** Gathers batches of a table's schema from other batches of it; category dictionaries grow across the batches. */
export class ArrowGatherer {
  /** The schema of every batch gathered (no metadata). */
  readonly schema: arrow.Schema<arrow.TypeMap>;
  private readonly categories: (ArrowEncoder | undefined)[];
  /** Each source dictionary's values, decoded once. */
  private readonly dictionaries = new WeakMap<arrow.Data, (string | null)[]>();

  constructor(table: Table) {
    this.schema = arrowSchema(undefined, table);
    this.categories = this.schema.fields.map((field, j) =>
      arrow.DataType.isDictionary(field.type) ? table.columns[j]!.type.arrowEncoder(arrow, field.type) : undefined,
    );
  }

  /** The batch of the picked rows (zero rows are fine). */
  gather(picks: Picks): arrow.RecordBatch {
    const children = this.schema.fields.map((field, j) => this.column(picks, field, j));
    const type = new arrow.Struct(this.schema.fields);
    const data = arrow.makeData({ type, length: picks.rows.length, nullCount: 0, children });
    return new arrow.RecordBatch(this.schema, data);
  }

  private column(picks: Picks, field: arrow.Field, j: number): arrow.Data {
    const sources: arrow.Data[] = picks.batches.map((batch) => batch.data.children[j]!);
    const category = this.categories[j];
    if (category !== undefined) return this.category(category, field.name, sources, picks.rows);
    const type = field.type as arrow.DataType;
    if (arrow.DataType.isUtf8(type)) return gatherUtf8(type, sources, picks.rows);
    if (arrow.DataType.isBool(type)) return gatherBits(type, sources, picks.rows);
    if (arrow.DataType.isInt(type) || arrow.DataType.isFloat(type) || arrow.DataType.isTimestamp(type))
      return gatherWords(type, sources, picks.rows);
    throw new TypeError(`arrow gather: column ${field.name} is of type ${String(type)}, which it cannot copy`);
  }

  /** A category column: its values read through each source's dictionary, encoded by the column's type. */
  private category(encode: ArrowEncoder, name: string, sources: readonly arrow.Data[], rows: readonly number[]) {
    const values = new Array<RowValue>(rows.length);
    for (let k = 0; k < rows.length; k++) {
      const source = sources[k]!;
      const at = source.offset + rows[k]!;
      values[k] = isValid(source, rows[k]!) ? this.dictionaryOf(source)[(source.values as Int32Array)[at]!]! : null;
    }
    return encode({ name, values, rows: [], place: 'staged pages' });
  }

  private dictionaryOf(source: arrow.Data): (string | null)[] {
    const dictionary = source.dictionary as arrow.Vector<arrow.Utf8>;
    const key = dictionary.data[0]! as arrow.Data;
    let values = this.dictionaries.get(key);
    if (values === undefined) {
      values = [...dictionary];
      this.dictionaries.set(key, values);
    }
    return values;
  }
}

/** Whether row `i` of `data` is not null. */
export function isValid(data: arrow.Data, i: number): boolean {
  const bitmap = data.nullBitmap;
  if (data.nullCount === 0 || bitmap === undefined || bitmap.length === 0) return true;
  const at = data.offset + i;
  return ((bitmap[at >> 3]! >> (at & 7)) & 1) === 1;
}

/** The validity bitmap of the picked rows, and their nulls; the bitmap is undefined when none is null. */
function validityOf(sources: readonly arrow.Data[], rows: readonly number[]) {
  const validity = new Uint8Array((rows.length + 7) >> 3);
  let nullCount = 0;
  for (let k = 0; k < rows.length; k++) {
    if (isValid(sources[k]!, rows[k]!)) validity[k >> 3]! |= 1 << (k & 7);
    else nullCount++;
  }
  return { nullCount, nullBitmap: nullCount > 0 ? validity : undefined };
}

/** A column of 64-bit values (int64, float64, timestamps), copied as two 32-bit words each, bits unchanged. */
function gatherWords(type: arrow.DataType, sources: readonly arrow.Data[], rows: readonly number[]): arrow.Data {
  const n = rows.length;
  const nulls = validityOf(sources, rows);
  const values = new (type as arrow.Int64).ArrayType(n);
  const out = new Int32Array(values.buffer);
  for (let k = 0; k < n; k++) {
    const source = sources[k]!;
    if (!isValid(source, rows[k]!)) continue;
    const words = wordsOf(source);
    const at = (source.offset + rows[k]!) * 2;
    out[k * 2] = words[at]!;
    out[k * 2 + 1] = words[at + 1]!;
  }
  return arrow.makeData({ type: type as arrow.Int64, length: n, ...nulls, data: values as BigInt64Array });
}

function wordsOf(data: arrow.Data): Int32Array {
  const values = data.values as Float64Array | BigInt64Array;
  return new Int32Array(values.buffer, values.byteOffset, values.length * 2);
}

/** A boolean column, bit by bit (a null is a 0 bit, as the encoder leaves it). */
function gatherBits(type: arrow.DataType, sources: readonly arrow.Data[], rows: readonly number[]): arrow.Data {
  const n = rows.length;
  const nulls = validityOf(sources, rows);
  const bits = new Uint8Array((n + 7) >> 3);
  for (let k = 0; k < n; k++) {
    const source = sources[k]!;
    if (!isValid(source, rows[k]!)) continue;
    const at = source.offset + rows[k]!;
    if (((source.values as Uint8Array)[at >> 3]! >> (at & 7)) & 1) bits[k >> 3]! |= 1 << (k & 7);
  }
  return arrow.makeData({ type: type as arrow.Bool, length: n, ...nulls, data: bits });
}

/** A text column: each value's UTF-8 bytes copied after the last (a null is empty, as the encoder writes it). */
function gatherUtf8(type: arrow.DataType, sources: readonly arrow.Data[], rows: readonly number[]): arrow.Data {
  const n = rows.length;
  const nulls = validityOf(sources, rows);
  const offsets = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) {
    const source = sources[k]!;
    const at = source.offset + rows[k]!;
    const starts = source.valueOffsets as Int32Array;
    const length = isValid(source, rows[k]!) ? starts[at + 1]! - starts[at]! : 0;
    offsets[k + 1] = offsets[k]! + length;
  }
  const bytes = new Uint8Array(offsets[n]!);
  for (let k = 0; k < n; k++) {
    const length = offsets[k + 1]! - offsets[k]!;
    if (length === 0) continue;
    const source = sources[k]!;
    const start = (source.valueOffsets as Int32Array)[source.offset + rows[k]!]!;
    bytes.set((source.values as Uint8Array).subarray(start, start + length), offsets[k]);
  }
  return arrow.makeData({ type: type as arrow.Utf8, length: n, ...nulls, valueOffsets: offsets, data: bytes });
}
