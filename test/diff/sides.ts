/**
 * Building the two sides of a diff in memory: Arrow columns with nulls, exact int64 and timestamp buffers,
 * dictionary and plain strings, cut into record batches as a file reader would give them.
 */
import {
  Bool,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  RecordBatch,
  type TypeMap,
  Schema,
  Struct,
  TimestampMicrosecond,
  Utf8,
  makeData,
  vectorFromArray,
  type Data,
  type DataType,
} from 'apache-arrow';
import type { DiffSide } from '../../src/diff/diff-side.js';
import type { DiffEntry, SnapshotDiff } from '../../src/diff/diff-snapshots.js';

/** A column of one batch: its Arrow type and values (bigint or number for integers and timestamps). */
export type ColumnValues = { type: DataType; values: readonly unknown[] };

/** int64 values (number or bigint) or null. */
export const int64 = (values: readonly (number | bigint | null)[]): ColumnValues => ({ type: new Int64(), values });
/** float64 values or null. */
export const float64 = (values: readonly (number | null)[]): ColumnValues => ({ type: new Float64(), values });
/** Plain strings or null. */
export const utf8 = (values: readonly (string | null)[]): ColumnValues => ({ type: new Utf8(), values });
/** Dictionary-encoded strings (Dictionary<Utf8, Int32>) or null. */
export const category = (values: readonly (string | null)[]): ColumnValues => ({
  type: new Dictionary(new Utf8(), new Int32()),
  values,
});
/** Booleans or null. */
export const bool = (values: readonly (boolean | null)[]): ColumnValues => ({ type: new Bool(), values });
/** Timestamps as exact counts of the type's unit (default microseconds, UTC) or null. */
export const timestamp = (
  values: readonly (bigint | null)[],
  type: DataType = new TimestampMicrosecond('UTC'),
): ColumnValues => ({ type, values });

/** The Arrow data of a column; int64 and timestamps are built from their exact buffers (no builder rounding). */
export function columnData({ type, values }: ColumnValues): Data {
  if (type instanceof Int64 || type.toString().startsWith('Timestamp')) {
    const data = new BigInt64Array(values.length);
    const bitmap = new Uint8Array(Math.ceil(values.length / 8));
    let nulls = 0;
    values.forEach((v, i) => {
      if (v === null) nulls++;
      else {
        data[i] = BigInt(v as number | bigint);
        bitmap[i >> 3]! |= 1 << (i & 7);
      }
    });
    return makeData({
      type: type as Int64,
      length: values.length,
      nullCount: nulls,
      nullBitmap: nulls > 0 ? bitmap : null,
      data,
    });
  }
  return vectorFromArray(values as unknown[], type).data[0]!;
}

/** One record batch of the given columns, in the given order. */
export function batchOf(columns: Record<string, ColumnValues>): RecordBatch {
  const names = Object.keys(columns);
  const children = names.map((name) => columnData(columns[name]!));
  const schema = new Schema(names.map((name, k) => new Field(name, children[k]!.type, true)));
  const length = children[0]?.length ?? 0;
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}

/** A side whose batches are the given ones (schema: the first batch's unless given). */
export function sideOf(path: string, batches: readonly RecordBatch[], schema?: Schema, onClose?: () => void): DiffSide {
  return {
    path,
    schema: (schema ?? batches[0]!.schema) as Schema<TypeMap>, // apache-arrow's default is Schema<any>
    batches: (async function* () {
      try {
        yield* batches;
      } finally {
        onClose?.();
      }
    })(),
  };
}

/** Every page a diff yields, and their entries in order. */
export async function collect(diff: SnapshotDiff): Promise<{ pages: DiffEntry[][]; entries: DiffEntry[] }> {
  const pages: DiffEntry[][] = [];
  for await (const page of diff) pages.push(page);
  return { pages, entries: pages.flat() };
}

/** Reads an async iterable to the end; resolves to the number of items. */
export async function drain(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of items) n++;
  return n;
}
