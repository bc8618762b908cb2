/**
 * Sink: a diff's entries as `diff.parquet` and/or `diff.csv`, in one pass over the entries.
 *
 * Parquet columns: `id` int64, `change` dictionary<int32, string> ("added", "removed", "changed"), `changed_fields`
 * list<string> — a list rather than joined text so that DuckDB (`list_contains(changed_fields, 'name')`, `unnest`),
 * polars (`List(String)`) and pandas (`explode`) test membership exactly; with joined text, `LIKE '%name%'` would also
 * match `cognitive_paradigm_name` — then the table's diffContext columns (images: `collection_id`, `name`), written as
 * the table's own files write them. CSV has no lists, so there the names are joined with `,` in one quoted field
 * (column names never hold a comma): `str.split(',')` in pandas, `string_split(changed_fields, ',')` in DuckDB; the
 * field is empty for added and removed records.
 *
 * Each file is written under a temporary name and renamed into place only when every entry was written (AtomicFile),
 * so no half-written diff ever appears under a final name, and an earlier diff there stays until the new one is whole.
 */
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { AtomicFile } from '../load/file-system/atomic-file.js';
import { writeParquetWasm } from '../load/parquet/parquet-wasm-writer.js';
import type { SinkResult } from '../load/sink-result.js';
import { DEFAULT_ROW_GROUP_SIZE } from '../load/parquet/to-parquet.js';
import { IMAGES } from '../schema/columns.js';
import { csvText } from '../schema/encoding/csv-field.js';
import type { Table } from '../schema/table.js';
import { diffBatches } from './diff-batch.js';
import type { DiffEntry } from './diff-snapshots.js';
import { DiffError } from '../snapshot/diff-error.js';
import { whySnapshotFolder } from '../snapshot/snapshot-names.js';

import { DIFF_FILE_NAMES, DIFF_FORMATS, type DiffFormat } from './diff-formats.js';

export { DIFF_FILE_NAMES, DIFF_FORMATS, type DiffFormat };

/** Options of `writeDiff`. */
export interface WriteDiffOptions {
  /** Folder the files are written into (it must exist, and be no snapshot folder, which holds a run's); required. */
  dir: string;
  /** Files to write; default ['parquet']. */
  formats?: readonly DiffFormat[];
  /** Parquet key-value metadata, also in the embedded Arrow schema; default none. */
  metadata?: Record<string, string>;
  /** Rows per Parquet row group (the last may have fewer); default that of snapshots (25,000). */
  rowGroupSize?: number;
  /** The table diffed, which names the files and the columns beside the id; default the images (`diff.parquet`). */
  table?: Table;
}

/**
 * Writes every entry of `source` to the requested files in `options.dir`, publishing each atomically once all are
 * written; resolves to what was written, in `formats` order.
 */
export async function writeDiff(source: AsyncIterable<DiffEntry[]>, options: WriteDiffOptions): Promise<SinkResult[]> {
  return (await stageDiff(source, options)).commit();
}

/**
 * A diff written whole under temporary names: `commit` publishes its files and resolves to what was written, in
 * `formats` order (on failure, it removes what is left); `abort` removes the files not yet published, safe to call
 * more than once.
 */
export type StagedDiff = Awaited<ReturnType<typeof stageDiff>>;

/**
 * writeDiff up to the publishing, so that the files of several diffs are published together once all are whole (or
 * none, when one fails): every entry of `source` written under temporary names in `options.dir`, and flushed.
 */
export async function stageDiff(source: AsyncIterable<DiffEntry[]>, options: WriteDiffOptions) {
  const { formats, rowGroupSize } = checkedOptions(options);
  const why = await whySnapshotFolder(options.dir);
  if (why !== undefined) {
    const message = `diff: ${options.dir} ${why}; write the diff into a folder of its own`;
    throw DiffError.of('DIFF_INVALID_OPTION', message);
  }
  const files = new Map<DiffFormat, AtomicFile>();
  const abort = async (): Promise<void> => {
    for (const file of files.values()) await file.abort();
  };
  const iterator = source[Symbol.asyncIterator]();
  let rows: number;
  try {
    const table = options.table ?? IMAGES;
    for (const format of formats)
      files.set(format, await AtomicFile.create(join(options.dir, table.diffFiles[format])));
    rows = await writeEntries(iterator, files, table, { metadata: options.metadata ?? {}, rowGroupSize });
    for (const file of files.values()) await file.flush(); // every write error before any file is published
  } catch (error) {
    await abort();
    throw error;
  } finally {
    await iterator.return?.(); // stops the diff (and releases its files) when writing failed part way
  }
  const commit = async (): Promise<SinkResult[]> => {
    try {
      const results: SinkResult[] = [];
      for (const [format, file] of files) results.push({ format, path: file.path, rows, ...(await file.commit()) });
      return results;
    } catch (error) {
      await abort();
      throw error;
    }
  };
  return { commit, abort };
}

/** The formats (once each) and row group size of `options`, checked; a DiffError for a bad one. */
function checkedOptions(options: WriteDiffOptions): { formats: DiffFormat[]; rowGroupSize: number } {
  const formats: DiffFormat[] = [...new Set<DiffFormat>(options.formats ?? ['parquet'])];
  const rowGroupSize = options.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
  for (const format of formats) {
    if (!(DIFF_FORMATS as readonly string[]).includes(format))
      throw DiffError.of(
        'DIFF_INVALID_OPTION',
        `diff: unknown diff format ${JSON.stringify(format)}; choose from ${DIFF_FORMATS.join(', ')}`,
      );
  }
  if (formats.length === 0)
    throw DiffError.of('DIFF_INVALID_OPTION', `diff: no format to write; choose from ${DIFF_FORMATS.join(', ')}`);
  if (!Number.isSafeInteger(rowGroupSize) || rowGroupSize < 1)
    throw DiffError.of('DIFF_INVALID_OPTION', `diff: rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  return { formats, rowGroupSize };
}

/** Writes every page of entries to the open files (CSV header first), in one pass; resolves to the entries written. */
async function writeEntries(
  iterator: AsyncIterator<DiffEntry[]>,
  files: ReadonlyMap<DiffFormat, AtomicFile>,
  table: Table,
  { metadata, rowGroupSize }: { metadata: Record<string, string>; rowGroupSize: number },
): Promise<number> {
  const csv = files.get('csv');
  const parquet = files.get('parquet');
  let rows = 0;
  /** The next page of entries, written to the CSV on the way; undefined at the end. */
  const next = async (): Promise<DiffEntry[] | undefined> => {
    const item = await iterator.next();
    if (item.done === true) return undefined;
    if (csv !== undefined) await csv.write(item.value.map((e) => csvLine(e, table)).join(''));
    rows += item.value.length;
    return item.value;
  };
  if (csv !== undefined)
    await csv.write(['id', 'change', 'changed_fields', ...(table.diffContext ?? [])].join(',') + '\n');
  if (parquet !== undefined) {
    const batches = diffBatches(table, new Map(Object.entries(metadata)));
    await writeParquetWasm(recordBatches(next, batches.batch), parquet, {
      rowGroupSize,
      metadata,
      empty: batches.batch([]),
      dictionaryColumns: ['change'],
    });
  } else while ((await next()) !== undefined);
  return rows;
}

/** The pages `next` gives, as Arrow record batches made by `batch`. */
async function* recordBatches(
  next: () => Promise<DiffEntry[] | undefined>,
  batch: (entries: readonly DiffEntry[]) => RecordBatch,
): AsyncIterable<RecordBatch> {
  for (let entries = await next(); entries !== undefined; entries = await next())
    if (entries.length > 0) yield batch(entries);
}

/**
 * One entry's CSV line: RFC 4180, LF line end, the changed fields' names joined with `,` (empty for added and removed
 * records), the context columns' fields as the table's CSV writes them (formulas neutralised, as by default).
 */
function csvLine(e: DiffEntry, table: Table): string {
  const fields = [
    String(e.id),
    e.change,
    e.changed_fields.length === 0 ? '' : csvText(e.changed_fields.join(','), false),
  ];
  for (const c of table.diffContextColumns) {
    const value = e.context[c.name] ?? null;
    fields.push(value === null ? '' : c.type.csvField(value, true));
  }
  return `${fields.join(',')}\n`;
}
