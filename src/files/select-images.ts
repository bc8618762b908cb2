/**
 * The images a snapshot selects: its rows read back in id order (read-snapshot-rows.ts) and kept where every
 * `--where` condition holds, as page-sized batches of what fetching needs (id, collection, links, `file_size`).
 * Values are read from the Arrow columns by the column's type: int64 as a number, timestamps as exact microseconds.
 */
import { DataType, TimeUnit, type Field, type RecordBatch } from 'apache-arrow';
import type { SnapshotRows } from '../snapshot/read-snapshot-rows.js';
import type { ColumnKind } from '../schema/columns.js';
import { FilesError } from './files-error.js';
import type { UnmatchedValues } from './unmatched-values.js';
import { matchesWhere, type ConditionValue, type WhereCondition } from './where-condition.js';

/** One selected image: what fetching its files needs. */
export interface SelectedImage {
  id: number;
  collectionId: number | null;
  /** The `file` link, or null. */
  file: string | null;
  /** The listed `file_size`, or null. */
  fileSize: number | null;
  /** The other links asked for that the record has, by key (`thumbnail`, `surface_left_file`, …). */
  extras: { key: string; url: string }[];
}

/** The columns every selection reads. */
export const SELECTION_COLUMNS = ['id', 'collection_id', 'file', 'file_size'] as const;

/** The selected images of `rows`, a batch per record batch read (empty batches skipped). */
export async function* selectImages(
  rows: SnapshotRows,
  where: readonly WhereCondition[],
  extraKeys: readonly string[] = [],
  unmatched?: UnmatchedValues,
): AsyncGenerator<SelectedImage[]> {
  const fields = new Map(rows.schema.fields.map((f) => [f.name, f]));
  checkColumns(rows.path, fields, where);
  const extras = extraKeys.filter((key) => fields.has(key));
  for await (const batch of rows.batches) {
    const selected = selectedOf(batch, where, extras, unmatched);
    if (selected.length > 0) yield selected;
  }
}

/** Throws unless the snapshot has the selection's columns and each condition's column is of its kind. */
function checkColumns(path: string, fields: ReadonlyMap<string, Field>, where: readonly WhereCondition[]): void {
  for (const name of [...SELECTION_COLUMNS, ...where.map((c) => c.column.name)]) {
    if (!fields.has(name)) throw FilesError.of('FILES_UNREADABLE', `files: ${path} has no column ${name}`);
  }
  for (const condition of where) {
    const kind = condition.column.type.kind;
    const type = fields.get(condition.column.name)!.type as DataType;
    if (!fits(kind, type)) {
      const name = condition.column.name;
      throw FilesError.of('FILES_UNREADABLE', `files: ${path}: column ${name} is ${String(type)}, not ${kind}`);
    }
  }
}

/**
 * The images of one record batch where every condition holds, with the `extras` links they have; `unmatched` sees
 * every image's values of the columns it watches.
 */
function selectedOf(
  batch: RecordBatch,
  where: readonly WhereCondition[],
  extras: readonly string[],
  unmatched: UnmatchedValues | undefined,
): SelectedImage[] {
  const read = (name: string, kind: ColumnKind): ((i: number) => ConditionValue | null) => reader(batch, name, kind);
  const conditions = where.map((c) => ({ condition: c, value: read(c.column.name, c.column.type.kind) }));
  for (const at of unmatched?.positions ?? []) {
    const value = conditions[at]!.value;
    for (let i = 0; i < batch.numRows; i++) unmatched!.see(at, value(i));
  }
  const id = read('id', 'int64');
  const collection = read('collection_id', 'int64');
  const file = read('file', 'string');
  const size = read('file_size', 'int64');
  const links = extras.map((key) => ({ key, value: read(key, 'string') }));
  const selected: SelectedImage[] = [];
  for (let i = 0; i < batch.numRows; i++) {
    if (!conditions.every(({ condition, value }) => matchesWhere(condition, value(i)))) continue;
    const present = links
      .map(({ key, value }) => ({ key, url: value(i) as string | null }))
      .filter((l): l is { key: string; url: string } => l.url !== null);
    selected.push({
      id: id(i) as number,
      collectionId: collection(i) as number | null,
      file: file(i) as string | null,
      fileSize: size(i) as number | null,
      extras: present,
    });
  }
  return selected;
}

/** Whether an Arrow type holds values of a column kind. */
function fits(kind: ColumnKind, type: DataType): boolean {
  if (kind === 'int64') return DataType.isInt(type);
  if (kind === 'float64') return DataType.isFloat(type) || DataType.isInt(type);
  if (kind === 'boolean') return DataType.isBool(type);
  if (kind === 'timestamp') return DataType.isTimestamp(type);
  return DataType.isUtf8(type) || DataType.isLargeUtf8(type) || DataType.isDictionary(type);
}

/**
 * Reads row i of a column as a condition value: int64 as a number, timestamps as bigint microseconds (never through
 * float milliseconds).
 */
function reader(batch: RecordBatch, name: string, kind: ColumnKind): (i: number) => ConditionValue | null {
  const vector = batch.getChild(name);
  if (vector === null) return () => null;
  if (kind === 'timestamp') {
    const data = vector.data[0]!;
    const unit = (data.type as DataType & { unit: TimeUnit }).unit;
    const scale = {
      [TimeUnit.SECOND]: 1_000_000n,
      [TimeUnit.MILLISECOND]: 1_000n,
      [TimeUnit.MICROSECOND]: 1n,
      [TimeUnit.NANOSECOND]: 1n,
    }[unit];
    const values = data.values as BigInt64Array;
    return (i) => {
      if (!vector.isValid(i)) return null;
      const raw = BigInt(values[data.offset + i]!);
      return unit === TimeUnit.NANOSECOND ? raw / 1000n : raw * scale;
    };
  }
  if (kind === 'int64') {
    return (i) => {
      const v = vector.get(i) as bigint | number | null;
      return v === null ? null : Number(v);
    };
  }
  return (i) => vector.get(i) as ConditionValue | null;
}
