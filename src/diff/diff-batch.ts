/**
 * The Arrow form of diff entries, which diff.parquet is written from: `id` int64, `change` dictionary<int32, string>
 * ("added", "removed", "changed"), `changed_fields` list<string>, none of them nullable; then the table's diffContext
 * columns (images: `collection_id`, `name`), nullable, each of its column type's Arrow type and encoder.
 */
import * as arrow from 'apache-arrow';
import {
  Dictionary,
  Field,
  Int32,
  Int64,
  List,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  makeData,
  makeVector,
  type Data,
} from 'apache-arrow';
import type { ArrowEncoder } from '../schema/column-type.js';
import type { Table } from '../schema/table.js';
import { DiffError } from '../snapshot/diff-error.js';
import type { DiffChange, DiffEntry } from './diff-snapshots.js';

/** The values of the `change` column, in dictionary order. */
const CHANGES: readonly DiffChange[] = ['added', 'removed', 'changed'];
const CHANGE_KEY = new Map(CHANGES.map((c, k) => [c, k]));

/** The Arrow schema of the diff of `table`, with optional metadata, and a maker of its record batches. */
export function diffBatches(
  table: Table,
  metadata?: Map<string, string>,
): { schema: Schema; batch: (entries: readonly DiffEntry[]) => RecordBatch } {
  const context = table.diffContextColumns.map((c, k) => new Field(c.name, c.type.arrowType(arrow, k + 1), true));
  const schema = new Schema(
    [
      new Field('id', new Int64(), false),
      new Field('change', new Dictionary(new Utf8(), new Int32(), 0), false),
      new Field('changed_fields', new List(new Field('item', new Utf8(), false)), false),
      ...context,
    ],
    metadata,
  );
  const encoders = table.diffContextColumns.map((c, k) => c.type.arrowEncoder(arrow, context[k]!.type));
  return { schema, batch: (entries) => diffBatch(schema, entries, encoders) };
}

/** One page of entries as an Arrow record batch of `schema`, its diffContext columns encoded by `encoders`. */
function diffBatch(schema: Schema, entries: readonly DiffEntry[], encoders: readonly ArrowEncoder[]): RecordBatch {
  const n = entries.length;
  const ids = new BigInt64Array(n);
  const keys = new Int32Array(n);
  const listOffsets = new Int32Array(n + 1);
  const names: Uint8Array[] = [];
  for (let r = 0; r < n; r++) {
    const entry = entries[r]!;
    ids[r] = BigInt(entry.id);
    const key = CHANGE_KEY.get(entry.change);
    if (key === undefined)
      throw DiffError.of(
        'DIFF_INVALID_OPTION',
        `diff: entry for id ${entry.id} has change ${JSON.stringify(entry.change)}; expected ` +
          `${CHANGES.join(', ')}`,
      );
    keys[r] = key;
    for (const name of entry.changed_fields) names.push(utf8(name));
    listOffsets[r + 1] = names.length;
  }
  const [idField, changeField, fieldsField, ...contextFields] = schema.fields as [
    Field<Int64>,
    Field<Dictionary<Utf8, Int32>>,
    Field<List<Utf8>>,
    ...Field[],
  ];
  const rows = entries.map((e) => ({ id: e.id }));
  const children: Data[] = [
    makeData({ type: idField.type, length: n, nullCount: 0, data: ids }),
    makeData({ type: changeField.type, length: n, nullCount: 0, data: keys, dictionary: CHANGE_DICTIONARY }),
    makeData({ type: fieldsField.type, length: n, nullCount: 0, valueOffsets: listOffsets, child: utf8Data(names) }),
    ...contextFields.map(({ name }, k) =>
      encoders[k]!({ name, values: entries.map((e) => e.context[name] ?? null), rows, place: 'diff' }),
    ),
  ];
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children }));
}

const encoder = new TextEncoder();
const encoded = new Map<string, Uint8Array>();

/** A column name's UTF-8 bytes, encoded once. */
function utf8(name: string): Uint8Array {
  let bytes = encoded.get(name);
  if (bytes === undefined) encoded.set(name, (bytes = encoder.encode(name)));
  return bytes;
}

/** A Utf8 column of the given strings' bytes. */
function utf8Data(values: readonly Uint8Array[]): Data<Utf8> {
  const offsets = new Int32Array(values.length + 1);
  let total = 0;
  values.forEach((v, k) => (offsets[k + 1] = total += v.byteLength));
  const bytes = new Uint8Array(total);
  values.forEach((v, k) => bytes.set(v, offsets[k]));
  return makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets: offsets, data: bytes });
}

const CHANGE_DICTIONARY = makeVector(utf8Data(CHANGES.map(utf8)));
