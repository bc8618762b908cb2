/**
 * Sink: a diff's entries as `diff.parquet` and/or `diff.csv`, in one pass over the entries.
 *
 * Parquet columns: `id` int64, `change` dictionary<int32, string> ("added", "removed", "changed"), `changed_fields`
 * list<string> — a list rather than joined text so that DuckDB (`list_contains(changed_fields, 'name')`, `unnest`),
 * polars (`List(String)`) and pandas (`explode`) test membership exactly; with joined text, `LIKE '%name%'` would also
 * match `cognitive_paradigm_name`. CSV has no lists, so there the names are joined with `,` in one quoted field
 * (column names never hold a comma): `str.split(',')` in pandas, `string_split(changed_fields, ',')` in DuckDB; the
 * field is empty for added and removed records.
 *
 * Each file is written under a temporary name and renamed into place only when every entry was written (AtomicFile),
 * so no half-written diff ever appears under a final name, and an earlier diff there stays until the new one is whole.
 */
import { join } from 'node:path';
import { Table, tableToIPC, type RecordBatch, type Schema } from 'apache-arrow';
import { stringify } from 'csv-stringify/sync';
import * as parquetWasm from 'parquet-wasm/node';
import { AtomicFile } from '../load/atomic-file.js';
import { encodeFailed, LoadError } from '../load/load-error.js';
import { readParquetFooterRows } from '../load/parquet-footer.js';
import type { SinkResult } from '../load/sink-result.js';
import { diffBatch, diffSchema } from './diff-batch.js';
import type { DiffEntry } from './diff-snapshots.js';
import { DiffError } from './diff-error.js';

/** The formats a diff can be written in. */
export const DIFF_FORMATS = ['parquet', 'csv'] as const;

/** One diff file format. */
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** The file name each diff format is written to inside the output folder. */
export const DIFF_FILE_NAMES: Record<DiffFormat, string> = { parquet: 'diff.parquet', csv: 'diff.csv' };

/** Options of `writeDiff`. */
export interface WriteDiffOptions {
  /** Folder the files are written into (it must exist); required. */
  dir: string;
  /** Files to write; default ['parquet']. */
  formats?: readonly DiffFormat[];
  /** Parquet key-value metadata, also in the embedded Arrow schema; default none. */
  metadata?: Record<string, string>;
  /** Rows per Parquet row group (the last may have fewer); default 100,000. */
  rowGroupSize?: number;
}

const CSV_HEADER = ['id', 'change', 'changed_fields'];
const DEFAULT_ROW_GROUP_SIZE = 100_000;
// Entries handed to WebAssembly at once: one IPC stream per group rather than per page.
const HANDOVER_ROWS = 8192;

/** Writes every entry of `source` to the requested files in `options.dir`, publishing each atomically once all are written; resolves to what was written, in `formats` order. */
export async function writeDiff(source: AsyncIterable<DiffEntry[]>, options: WriteDiffOptions): Promise<SinkResult[]> {
  const formats: DiffFormat[] = [...new Set<DiffFormat>(options.formats ?? ['parquet'])];
  const rowGroupSize = options.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
  for (const format of formats) {
    if (!(DIFF_FORMATS as readonly string[]).includes(format)) throw new DiffError('DIFF_INVALID_OPTION', `diff: unknown diff format ${JSON.stringify(format)}; choose from ${DIFF_FORMATS.join(', ')}`);
  }
  if (formats.length === 0) throw new DiffError('DIFF_INVALID_OPTION', `diff: no format to write; choose from ${DIFF_FORMATS.join(', ')}`);
  if (!Number.isSafeInteger(rowGroupSize) || rowGroupSize < 1) throw new DiffError('DIFF_INVALID_OPTION', `diff: rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  const files = new Map<DiffFormat, AtomicFile>();
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (const format of formats) files.set(format, await AtomicFile.create(join(options.dir, DIFF_FILE_NAMES[format])));
    const csv = files.get('csv');
    const parquet = files.get('parquet');
    let rows = 0;
    /** The next page of entries, written to the CSV on the way; undefined at the end. */
    const next = async (): Promise<DiffEntry[] | undefined> => {
      const item = await iterator.next();
      if (item.done === true) return undefined;
      if (csv !== undefined) await csv.write(csvText(item.value, false));
      rows += item.value.length;
      return item.value;
    };
    if (csv !== undefined) await csv.write(csvText([], true));
    if (parquet !== undefined) await writeParquet(next, parquet, diffSchema(new Map(Object.entries(options.metadata ?? {}))), rowGroupSize);
    else while ((await next()) !== undefined);
    const results: SinkResult[] = [];
    for (const [format, file] of files) {
      await file.flush();
      if (format === 'parquet') await checkFooter(file, rows);
    }
    for (const [format, file] of files) results.push({ format, path: file.path, rows, ...(await file.commit()) });
    return results;
  } catch (error) {
    for (const file of files.values()) await file.abort();
    throw error;
  } finally {
    await iterator.return?.(); // stops the diff (and releases its files) when writing failed part way
  }
}

/** Streams the pages `next` gives into `file` as Parquet with parquet-wasm (zstd, dictionaries). */
async function writeParquet(next: () => Promise<DiffEntry[] | undefined>, file: AtomicFile, schema: Schema, rowGroupSize: number): Promise<void> {
  let handedOver = false;
  let ended = false;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  // parquet-wasm ignores errors of its input stream, so the stream never errors: it ends, and the failure is kept.
  const input = new ReadableStream<parquetWasm.RecordBatch>(
    {
      pull: async (controller) => {
        try {
          const group: RecordBatch[] = [];
          let groupRows = 0;
          while (!stopped && !ended && groupRows < HANDOVER_ROWS) {
            const entries = await next();
            if (entries === undefined) ended = true;
            else if (entries.length > 0) {
              group.push(diffBatch(schema, entries));
              groupRows += entries.length;
            }
          }
          if (stopped || (group.length === 0 && handedOver)) return controller.close();
          if (group.length === 0) group.push(diffBatch(schema, [])); // an empty file still needs the schema
          for (const batch of toWasmBatches(group)) controller.enqueue(batch);
          handedOver = true;
        } catch (error) {
          failure = { error };
          ended = true;
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
  try {
    let output: ReadableStream<Uint8Array>;
    try {
      output = await parquetWasm.transformParquetStream(input, writerProperties(schema, rowGroupSize));
    } catch (cause) {
      throw failure ? failure.error : encodeFailed(`writing parquet file ${file.path} with parquet-wasm`, cause);
    }
    for await (const chunk of output) await file.write(chunk);
    if (failure) throw failure.error;
  } finally {
    stopped = true; // the Rust writer goes on pulling after its output fails; make it stop
  }
}

/** parquet-wasm drops write errors silently: the footer must count every entry. */
async function checkFooter(file: AtomicFile, rows: number): Promise<void> {
  const footer = await readParquetFooterRows(file.tempPath).catch((cause: unknown) => {
    throw new LoadError('LOAD_ENCODE_FAILED', `load: parquet-wasm wrote an unreadable parquet footer to ${file.tempPath}: ${(cause as Error).message}`, { cause });
  });
  if (footer.rows !== rows) throw new LoadError('LOAD_ENCODE_FAILED', `load: parquet-wasm wrote ${footer.rows} rows of the ${rows} it was given to ${file.path}`);
}

/** Converts apache-arrow batches to parquet-wasm batches (in WebAssembly memory) through one IPC stream. */
function toWasmBatches(batches: RecordBatch[]): parquetWasm.RecordBatch[] {
  let table: parquetWasm.Table;
  try {
    table = parquetWasm.Table.fromIPCStream(tableToIPC(new Table(batches), 'stream'));
  } catch (cause) {
    throw encodeFailed('handing diff entries to parquet-wasm', cause);
  }
  try {
    return table.recordBatches(); // the stream takes ownership of these; the table is freed here
  } finally {
    table.free();
  }
}

function writerProperties(schema: Schema, rowGroupSize: number): parquetWasm.WriterProperties {
  return new parquetWasm.WriterPropertiesBuilder()
    .setCompression(parquetWasm.Compression.ZSTD)
    .setDictionaryEnabled(true)
    .setMaxRowGroupSize(rowGroupSize)
    .setKeyValueMetadata(new Map(schema.metadata))
    .build();
}

/** CSV text of the header (`header`) or of a page of entries: RFC 4180, LF line ends, names joined with `,`. */
function csvText(entries: readonly DiffEntry[], header: boolean): string {
  const records = header ? [CSV_HEADER] : entries.map((e) => [String(e.id), e.change, e.changed_fields.join(',')]);
  if (records.length === 0) return '';
  try {
    return stringify(records, { record_delimiter: '\n', eof: true });
  } catch (cause) {
    throw encodeFailed('writing diff csv', cause);
  }
}
