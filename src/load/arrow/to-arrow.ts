/**
 * Sink: the Arrow IPC file format (Feather v2), readable by pyarrow, `pandas.read_feather`, `polars.read_ipc` and
 * apache-arrow. Batches stream to disk one by one (memory stays flat) holding only their category columns' indices;
 * each category column's one dictionary, whole, follows the last batch (docs/arrow-dictionaries.md): no delta
 * dictionaries, which polars cannot read.
 */
import {
  AsyncByteQueue,
  RecordBatch,
  RecordBatchFileWriter,
  vectorFromArray,
  type Data,
  type DataType,
  type Schema,
  type Vector,
} from 'apache-arrow';
import { ArrowBatchBuilder, type LoadBatch } from './arrow-batches.js';
import { arrowSchema } from './arrow-schema.js';
import { IMAGES } from '../../schema/columns.js';
import type { Table } from '../../schema/table.js';
import type { AtomicFile } from '../file-system/atomic-file.js';
import { writeSinkFile } from '../write-sink-file.js';
import { encodeFailed } from '../../text/load-error.js';
import type { SinkResult } from '../sink-result.js';

/** Options of `toArrow`. */
export interface ArrowSinkOptions {
  /** Path of the `.arrow` file to publish; required. */
  path: string;
  /** Key-value metadata stored in the Arrow schema (source URL, snapshot time, schema version); default none. */
  metadata?: Record<string, string>;
  /** The table the batches are rows of; default the images. */
  table?: Table;
}

/**
 * Writes the batches to an Arrow IPC file at `options.path`, atomically; a stream without batches gives a valid empty
 * file.
 */
export function toArrow(source: AsyncIterable<LoadBatch>, options: ArrowSinkOptions): Promise<SinkResult> {
  return writeSinkFile(source, 'arrow', options.path, (file) => writeArrowFile(source, file, options));
}

/** Encodes the batches into `file` as an Arrow IPC file, footer included (not committed); the rows written. */
function writeArrowFile(
  source: AsyncIterable<LoadBatch>,
  file: AtomicFile,
  options: ArrowSinkOptions,
): Promise<number> {
  const table = options.table ?? IMAGES;
  const schema = arrowSchema(new Map(Object.entries(options.metadata ?? {})), table);
  const empty = () => new ArrowBatchBuilder(table).build([]); // the schema and empty dictionaries
  return writeArrowBatches(arrowOf(source), file, { schema, empty, path: options.path });
}

async function* arrowOf(source: AsyncIterable<LoadBatch>): AsyncGenerator<RecordBatch> {
  for await (const batch of source) yield batch.arrow;
}

/** What `writeArrowBatches` writes besides the batches. */
export interface ArrowBatchesOptions {
  /** The file's schema, metadata included: each batch's data is written under it. */
  schema: Schema;
  /** The batch of no rows written when there is none, so that a reader finds the schema and every dictionary. */
  empty: () => RecordBatch;
  /** The file's final path, named in errors. */
  path: string;
}

/**
 * Writes record batches into `file` as an Arrow IPC file, one at a time, each category's dictionary once after the
 * last; the footer included, the file not committed. Resolves to the rows written.
 */
export async function writeArrowBatches(
  source: AsyncIterable<RecordBatch>,
  file: AtomicFile,
  { schema, empty, path }: ArrowBatchesOptions,
): Promise<number> {
  const bytes = new ByteCollector();
  const writer = new DictionariesLastFileWriter();
  const encode = (data: RecordBatch['data'] | undefined): void => {
    try {
      if (data === undefined)
        writer.close(); // writes the footer
      else writer.write(new RecordBatch(schema, data));
    } catch (cause) {
      throw encodeFailed(`writing arrow file ${path}`, cause);
    }
  };
  writer.reset(bytes);
  let rows = 0;
  let batches = 0;
  for await (const batch of source) {
    encode(batch.data);
    rows += batch.numRows;
    batches++;
    for (const chunk of bytes.take()) await file.write(chunk);
  }
  if (batches === 0) encode(empty().data);
  encode(undefined);
  for (const chunk of bytes.take()) await file.write(chunk);
  return rows;
}

/**
 * The writer's byte sink: collects what one `write` produced so that the caller can await the disk before the next
 * batch.
 */
class ByteCollector extends AsyncByteQueue {
  private chunks: Uint8Array[] = [];

  override write(value: Uint8Array): void {
    if (value.byteLength > 0) this.chunks.push(value);
  }

  /** Removes and returns the bytes collected so far. */
  take(): Uint8Array[] {
    const chunks = this.chunks;
    this.chunks = [];
    return chunks;
  }
}

/**
 * apache-arrow's IPC file writer with each dictionary written once, after the record batches: it keeps every batch's
 * dictionaries (a category's grows batch after batch, its values keeping their places: category.ts) and writes each
 * column's last, as one chunk, before the footer. The IPC file format allows a dictionary anywhere in the file ("there
 * is no requirement that dictionary keys should be defined in a DictionaryBatch before they are used in a
 * RecordBatch, as long as the keys are defined somewhere in the file"), and its readers read the dictionaries from the
 * footer before any batch. The two overrides are the writer's typed protected members.
 */
class DictionariesLastFileWriter extends RecordBatchFileWriter {
  private readonly dictionaries = new Map<number, Vector<DataType>>();

  protected override _writeDictionaries(batch: RecordBatch): this {
    for (const [id, dictionary] of batch.dictionaries) this.dictionaries.set(id, dictionary as Vector<DataType>);
    return this;
  }

  protected override _writeFooter(schema: Schema): this {
    for (const [id, dictionary] of this.dictionaries) this._writeDictionaryBatch(oneChunk(dictionary), id, false);
    this.dictionaries.clear();
    return super._writeFooter(schema);
  }
}

/** A dictionary's values as one Data (a category's dictionary is a chunk per batch that brought new values). */
function oneChunk(dictionary: Vector<DataType>): Data<DataType> {
  const whole = dictionary.data.length === 1 ? dictionary : vectorFromArray([...dictionary], dictionary.type);
  if (whole.data.length !== 1) throw new Error(`arrow: a dictionary of ${dictionary.length} values took 2 chunks`);
  return whole.data[0]!;
}
