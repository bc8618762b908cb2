/**
 * Sink: Parquet, by one of two engines — 'wasm' (parquet-wasm: zstd, dictionary-encoded categories, Arrow schema
 * embedded) or 'parquetjs' (parquetjs-lite: pure JavaScript, snappy, plain strings). Both write the same columns,
 * fixed-size row groups and the given key-value metadata, stream batch by batch, and publish atomically.
 */
import { RecordBatch, type Schema } from 'apache-arrow';
import { ArrowBatchBuilder, type LoadBatch } from '../arrow/arrow-batches.js';
import { IMAGES } from '../../schema/columns.js';
import type { Table } from '../../schema/table.js';
import { arrowSchema } from '../arrow/arrow-schema.js';
import type { AtomicFile } from '../file-system/atomic-file.js';
import { writeSinkFile } from '../write-sink-file.js';
import { LoadError } from '../../text/load-error.js';
import type { SinkResult } from '../sink-result.js';

import { engineOf, type ParquetEngine } from '../engine-names.js';

export type { ParquetEngine } from '../engine-names.js';

/** Options of `toParquet`. */
export interface ParquetSinkOptions {
  /** Path of the `.parquet` file to publish; required. */
  path: string;
  /** Writer: 'wasm' (parquet-wasm, zstd, dictionaries) or 'parquetjs' (parquetjs-lite, snappy); default 'wasm'. */
  engine?: ParquetEngine;
  /** Rows per row group; only the last group may have fewer; default 25,000. */
  rowGroupSize?: number;
  /**
   * Parquet key-value metadata (e.g. `img-etl.source_url`, `img-etl.snapshot_time`, `img-etl.schema_version`), also
   * stored in the embedded Arrow schema by 'wasm'; default none.
   */
  metadata?: Record<string, string>;
  /** The table the batches are rows of; default the images. */
  table?: Table;
}

/**
 * Default rows per row group. parquet-wasm's memory grows with the group being written and never shrinks, while
 * smaller groups make the file only a little larger (docs/performance.md, "Parquet row groups").
 */
export const DEFAULT_ROW_GROUP_SIZE = 25_000;

/** What an engine is given besides the batches and the file: the sink's options, defaults applied. */
type EngineOptions = Required<Pick<ParquetSinkOptions, 'rowGroupSize' | 'metadata' | 'table'>>;

/** A Parquet engine: writes the batches into `file` (not committed) and returns the rows written. */
type ParquetWriter = (source: AsyncIterable<LoadBatch>, file: AtomicFile, options: EngineOptions) => Promise<number>;

/**
 * The engines, the one place they are named. Each is loaded when first used (parquet-wasm compiles its WebAssembly
 * then): a run loads only the one it writes with.
 */
const ENGINES: Record<ParquetEngine, ParquetWriter> = {
  wasm: writeWasm,
  parquetjs: async (...args) => (await import('./parquetjs-writer.js')).writeParquetJs(...args),
};

/**
 * Writes the batches to a Parquet file at `options.path`, atomically; a stream without batches gives a valid file with
 * no rows.
 */
export function toParquet(source: AsyncIterable<LoadBatch>, options: ParquetSinkOptions): Promise<SinkResult> {
  const engine = options.engine ?? 'wasm';
  const table = options.table ?? IMAGES;
  const rowGroupSize = options.rowGroupSize ?? table.parquetRowGroupRows ?? DEFAULT_ROW_GROUP_SIZE;
  return writeSinkFile(source, 'parquet', options.path, (file) => {
    const write = engineOf('parquet', ENGINES, engine);
    if (!Number.isSafeInteger(rowGroupSize) || rowGroupSize < 1)
      throw LoadError.of('LOAD_INVALID_OPTION', `load: rowGroupSize must be a positive integer, got ${rowGroupSize}`);
    return write(source, file, { rowGroupSize, metadata: options.metadata ?? {}, table });
  });
}

/**
 * The 'wasm' engine over the table's batches: Arrow batches under the schema that carries the metadata, an empty
 * batch for a file without rows, and dictionaries for the columns whose definition asks for one.
 */
async function writeWasm(source: AsyncIterable<LoadBatch>, file: AtomicFile, options: EngineOptions): Promise<number> {
  const { writeParquetWasm } = await import('./parquet-wasm-writer.js');
  const { rowGroupSize, metadata, table } = options;
  const schema = arrowSchema(new Map(Object.entries(metadata)), table);
  const empty = new RecordBatch(schema, new ArrowBatchBuilder(table).build([]).data);
  const dictionaryColumns = table.columns.filter((c) => c.dictionary).map((c) => c.name);
  return writeParquetWasm(withSchema(source, schema), file, { rowGroupSize, metadata, empty, dictionaryColumns });
}

/** The page batches' Arrow data under the schema that carries the file's metadata. */
async function* withSchema(source: AsyncIterable<LoadBatch>, schema: Schema): AsyncIterable<RecordBatch> {
  for await (const batch of source) yield new RecordBatch(schema, batch.arrow.data);
}
