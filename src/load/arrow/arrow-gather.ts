/**
 * The write's Arrow stage over staged pages: picks rows out of the pages' staged record batches into one batch, column
 * by column, copying bytes rather than rebuilding values, and equal byte for byte to the batch ArrowBatchBuilder builds
 * from the same rows (a category goes through its type's encoder, so its dictionary grows alike). Rows come in runs
 * from one page, as the list is nearly in id order, and a run is copied at once.
 */
import * as arrow from 'apache-arrow';
import type { ArrowEncoder } from '../../schema/column-type.js';
import type { RowValue } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { arrowSchema } from './arrow-schema.js';

/** Rows to pick: row `rows[k]` of `batches[k]`, for each k, in order. */
export interface Picks {
  batches: readonly arrow.RecordBatch[];
  rows: readonly number[];
}

/** Consecutive rows of one source batch: `length` rows from `row`, placed from `at` in the batch gathered. */
interface Run {
  children: readonly arrow.Data[];
  row: number;
  length: number;
  at: number;
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
    const runs = runsOf(picks);
    const n = picks.rows.length;
    const children = this.schema.fields.map((field, j) => this.column(runs, n, field, j));
    const type = new arrow.Struct(this.schema.fields);
    const data = arrow.makeData({ type, length: n, nullCount: 0, children });
    return new arrow.RecordBatch(this.schema, data);
  }

  /** Column `j` of the picked rows, a UTF-8 column of the source batches beyond the schema's (staged beside them). */
  text(picks: Picks, j: number): arrow.Data<arrow.Utf8> {
    return gatherUtf8(new arrow.Utf8(), runsOf(picks), picks.rows.length, j) as arrow.Data<arrow.Utf8>;
  }

  private column(runs: readonly Run[], n: number, field: arrow.Field, j: number): arrow.Data {
    const whole = wholeColumn(runs, n, j);
    const category = this.categories[j];
    if (whole !== undefined && category === undefined) return whole;
    if (category !== undefined) return this.category(category, field.name, runs, n, j);
    return copyColumn(field, runs, n, j);
  }

  /** A category column: its values read through each source's dictionary, encoded by the column's type. */
  private category(encode: ArrowEncoder, name: string, runs: readonly Run[], n: number, j: number): arrow.Data {
    const values = new Array<RowValue>(n);
    for (const run of runs) {
      const source = run.children[j]!;
      const dictionary = this.dictionaryOf(source);
      const indices = source.values as Int32Array;
      for (let i = 0; i < run.length; i++) {
        const row = run.row + i;
        values[run.at + i] = isValid(source, row) ? dictionary[indices[source.offset + row]!]! : null;
      }
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

/** Column `j` of the picked rows, its bytes copied (not a category: `category` reads those through their values). */
function copyColumn(field: arrow.Field, runs: readonly Run[], n: number, j: number): arrow.Data {
  const type = field.type as arrow.DataType;
  if (arrow.DataType.isUtf8(type)) return gatherUtf8(type, runs, n, j);
  if (arrow.DataType.isBool(type)) return gatherBits(type, runs, n, j);
  if (arrow.DataType.isInt(type) || arrow.DataType.isFloat(type) || arrow.DataType.isTimestamp(type))
    return gatherWords(type, runs, n, j);
  throw new TypeError(`arrow gather: column ${field.name} is of type ${String(type)}, which it cannot copy`);
}

/**
 * Column `j` of the one source batch the picks are, all of it in order (a page of as many records as a batch, in id
 * order: the usual case), which is the column gathered; else undefined.
 */
function wholeColumn(runs: readonly Run[], n: number, j: number): arrow.Data | undefined {
  if (runs.length !== 1) return undefined;
  const [run] = runs;
  const source = run!.children[j]!;
  return run!.row === 0 && source.offset === 0 && source.length === n ? source : undefined;
}

/** The picks as runs of consecutive rows of one batch. */
function runsOf({ batches, rows }: Picks): Run[] {
  const runs: Run[] = [];
  let last: Run | undefined;
  let lastBatch: arrow.RecordBatch | undefined;
  for (let k = 0; k < rows.length; k++) {
    const batch = batches[k]!;
    const row = rows[k]!;
    if (last !== undefined && batch === lastBatch && row === last.row + last.length) last.length++;
    else {
      last = { children: batch.data.children, row, length: 1, at: k };
      lastBatch = batch;
      runs.push(last);
    }
  }
  return runs;
}

/** Whether row `i` of `data` is not null. */
export function isValid(data: arrow.Data, i: number): boolean {
  const bitmap = data.nullBitmap;
  if (data.nullCount === 0 || bitmap === undefined || bitmap.length === 0) return true;
  const at = data.offset + i;
  return ((bitmap[at >> 3]! >> (at & 7)) & 1) === 1;
}

/** The validity bitmap of column `j` of the picked rows, and their nulls; the bitmap is undefined when none is null. */
function validityOf(runs: readonly Run[], n: number, j: number) {
  const validity = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  for (const run of runs) {
    const source = run.children[j]!;
    for (let i = 0; i < run.length; i++) {
      const k = run.at + i;
      if (isValid(source, run.row + i)) validity[k >> 3]! |= 1 << (k & 7);
      else nullCount++;
    }
  }
  return { nullCount, nullBitmap: nullCount > 0 ? validity : undefined };
}

/**
 * A column of fixed-width values (int64, float64, timestamps), each run's bytes copied at once (a null's slot is 0 in
 * the source, as the encoder leaves it).
 */
function gatherWords(type: arrow.DataType, runs: readonly Run[], n: number, j: number): arrow.Data {
  const values = new (type as arrow.Int64).ArrayType(n);
  const out = new Uint8Array(values.buffer);
  const size = values.BYTES_PER_ELEMENT;
  for (const run of runs) {
    const source = run.children[j]!;
    const from = source.values as Float64Array | BigInt64Array;
    const start = from.byteOffset + (source.offset + run.row) * size;
    out.set(new Uint8Array(from.buffer, start, run.length * size), run.at * size);
  }
  return arrow.makeData({
    type: type as arrow.Int64,
    length: n,
    ...validityOf(runs, n, j),
    data: values as BigInt64Array,
  });
}

/** A boolean column, bit by bit (a null is a 0 bit, as the encoder leaves it). */
function gatherBits(type: arrow.DataType, runs: readonly Run[], n: number, j: number): arrow.Data {
  const bits = new Uint8Array((n + 7) >> 3);
  for (const run of runs) {
    const source = run.children[j]!;
    const from = source.values as Uint8Array;
    for (let i = 0; i < run.length; i++) {
      const at = source.offset + run.row + i;
      const k = run.at + i;
      if ((from[at >> 3]! >> (at & 7)) & 1) bits[k >> 3]! |= 1 << (k & 7);
    }
  }
  return arrow.makeData({ type: type as arrow.Bool, length: n, ...validityOf(runs, n, j), data: bits });
}

/** A text column: each run's UTF-8 bytes copied at once after the last (a null is empty, as the encoder writes it). */
function gatherUtf8(type: arrow.DataType, runs: readonly Run[], n: number, j: number): arrow.Data {
  const offsets = new Int32Array(n + 1);
  for (const run of runs) {
    const source = run.children[j]!;
    const starts = source.valueOffsets as Int32Array;
    const first = source.offset + run.row;
    const base = offsets[run.at]! - starts[first]!;
    for (let i = 1; i <= run.length; i++) offsets[run.at + i] = base + starts[first + i]!;
  }
  const bytes = new Uint8Array(offsets[n]!);
  for (const run of runs) {
    const source = run.children[j]!;
    const starts = source.valueOffsets as Int32Array;
    const first = source.offset + run.row;
    const from = source.values as Uint8Array;
    bytes.set(from.subarray(starts[first], starts[first + run.length]), offsets[run.at]);
  }
  return arrow.makeData({
    type: type as arrow.Utf8,
    length: n,
    ...validityOf(runs, n, j),
    valueOffsets: offsets,
    data: bytes,
  });
}
