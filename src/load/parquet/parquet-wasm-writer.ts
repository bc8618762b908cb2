/**
 * The 'wasm' Parquet engine: parquet-wasm streaming record batches into zstd-compressed, dictionary-encoded row groups,
 * memory holding at most a group being encoded and one being handed over. Two defences around parquet-wasm 0.7.2
 * (docs/parquet-writer.md): its streaming writer drops the errors of writing a batch, so the file's row counts are read
 * back and compared; its key-value metadata comes out in any order, so the footer is put in key order.
 */
import { openAsBlob } from 'node:fs';
import { Table, tableToIPC, type RecordBatch } from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm/node';
import type { AtomicFile } from '../file-system/atomic-file.js';
import { encodeFailed, LoadError } from '../../text/load-error.js';
import { sortFooterKeyValues } from './parquet-key-value-order.js';

// Pages are handed to WebAssembly in groups of about this many rows: one IPC stream (schema and dictionaries
// included) per group instead of per page. Row groups do not depend on it; memory holds one such group.
const HANDOVER_ROWS = 2048;

/** Bytes of output held back at least, to hold the whole footer (ours are tens of kB). */
const TAIL_BYTES = 1 << 20;

/** What the 'wasm' engine needs besides the batches. */
export interface ParquetWasmWriteOptions {
  /** Rows per row group (the last one may have fewer). */
  rowGroupSize: number;
  /** Parquet key-value metadata. */
  metadata: Record<string, string>;
  /** A batch without rows, of the batches' schema: an empty file still needs the schema. */
  empty: RecordBatch;
  /** Columns to dictionary-encode; the others are written plain (a dictionary of unique values only costs space). */
  dictionaryColumns: readonly string[];
}

/**
 * Writes Arrow record batches (all of one schema) as Parquet into `file` with parquet-wasm and checks the footer's
 * row counts against them; returns the rows written. The file is flushed, not committed.
 */
export async function writeParquetWasm(
  source: AsyncIterable<RecordBatch>,
  file: AtomicFile,
  options: ParquetWasmWriteOptions,
): Promise<number> {
  const iterator = source[Symbol.asyncIterator]();
  const handover: Handover = { rows: 0, stopped: false };
  const input = inputStream(iterator, options.empty, handover);
  try {
    const output = await parquetOutput(input, file, options, handover);
    await writeInOrder(output, file);
    if (handover.sourceFailure) throw handover.sourceFailure.error;
    await checkRowCount(file, handover.rows);
    return handover.rows;
  } finally {
    handover.stopped = true; // the Rust writer goes on pulling after its output fails; make it stop
    await iterator.return?.();
  }
}

/** How the source's hand-over to parquet-wasm stands. */
interface Handover {
  /** Rows handed over. */
  rows: number;
  /** The writer is done: hand over no more. */
  stopped: boolean;
  /** The source's failure, kept here (see inputStream). */
  sourceFailure?: { error: unknown };
}

/**
 * The source as parquet-wasm's input stream, HANDOVER_ROWS rows at a time (`empty` alone when the source has no rows).
 * parquet-wasm ignores errors of the input stream, so the stream never errors: it ends, and the failure is kept.
 */
function inputStream(
  iterator: AsyncIterator<RecordBatch>,
  empty: RecordBatch,
  handover: Handover,
): ReadableStream<parquetWasm.RecordBatch> {
  let handedOver = false;
  let ended = false;
  const pull = async (controller: ReadableStreamDefaultController<parquetWasm.RecordBatch>): Promise<void> => {
    try {
      const group: RecordBatch[] = [];
      let groupRows = 0;
      while (!handover.stopped && !ended && groupRows < HANDOVER_ROWS) {
        const next = await iterator.next();
        if (next.done) ended = true;
        else if (next.value.numRows > 0) {
          group.push(next.value);
          groupRows += next.value.numRows;
        }
      }
      if (handover.stopped || (group.length === 0 && handedOver)) return controller.close();
      if (group.length === 0) group.push(empty);
      for (const batch of toWasmBatches(group)) controller.enqueue(batch);
      handedOver = true;
      handover.rows += groupRows;
    } catch (error) {
      handover.sourceFailure = { error };
      controller.close();
    }
  };
  return new ReadableStream<parquetWasm.RecordBatch>({ pull }, { highWaterMark: 0 });
}

/** parquet-wasm's output for the input stream; the source's failure when it is why parquet-wasm failed. */
async function parquetOutput(
  input: ReadableStream<parquetWasm.RecordBatch>,
  file: AtomicFile,
  options: ParquetWasmWriteOptions,
  handover: Handover,
): Promise<ReadableStream<Uint8Array>> {
  try {
    const output: unknown = await parquetWasm.transformParquetStream(input, writerProperties(options));
    return output as ReadableStream<Uint8Array>; // typed any upstream
  } catch (cause) {
    throw handover.sourceFailure
      ? handover.sourceFailure.error
      : encodeFailed(`writing parquet file ${file.path} with parquet-wasm`, cause);
  }
}

/**
 * Writes the output into `file`, its last bytes held back until the end, so that the footer's key-value entries can
 * be put in order before they are written (see parquet-key-value-order.ts): then the same data always gives the same
 * bytes.
 */
async function writeInOrder(output: ReadableStream<Uint8Array>, file: AtomicFile): Promise<void> {
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  for await (const chunk of output) {
    held.push(chunk);
    heldBytes += chunk.length;
    while (held.length > 1 && heldBytes - held[0]!.length >= TAIL_BYTES) {
      const oldest = held.shift()!;
      heldBytes -= oldest.length;
      await file.write(oldest);
    }
  }
  const tail = Buffer.concat(held, heldBytes);
  sortFooterKeyValues(tail); // leaves the bytes as they are if the footer is not all in the tail
  await file.write(tail);
}

/** Converts apache-arrow batches to parquet-wasm batches (in WebAssembly memory) through one IPC stream. */
function toWasmBatches(batches: RecordBatch[]): parquetWasm.RecordBatch[] {
  let table: parquetWasm.Table;
  try {
    table = parquetWasm.Table.fromIPCStream(tableToIPC(new Table(batches), 'stream'));
  } catch (cause) {
    throw encodeFailed('handing a batch to parquet-wasm', cause);
  }
  try {
    return table.recordBatches(); // the stream takes ownership of these; the table is freed here
  } finally {
    table.free();
  }
}

function writerProperties(options: ParquetWasmWriteOptions): parquetWasm.WriterProperties {
  let builder = new parquetWasm.WriterPropertiesBuilder()
    .setCompression(parquetWasm.Compression.ZSTD)
    .setDictionaryEnabled(false)
    .setMaxRowGroupSize(options.rowGroupSize)
    .setKeyValueMetadata(new Map(Object.entries(options.metadata)));
  for (const column of options.dictionaryColumns) builder = builder.setColumnDictionaryEnabled(column, true);
  return builder.build();
}

/**
 * Checks that the Parquet file being written holds exactly `rows` rows in its footer and in its row groups, read with
 * parquet-wasm's metadata reader: its streaming writer leaves out a batch it fails to write, and says nothing.
 */
async function checkRowCount(file: AtomicFile, rows: number): Promise<void> {
  await file.flush();
  let counts: { file: number; groups: number[] };
  try {
    const parquetFile = await parquetWasm.ParquetFile.fromFile(await openAsBlob(file.tempPath));
    const metadata = parquetFile.metadata();
    const [fileMetadata, groups] = [metadata.fileMetadata(), metadata.rowGroups()];
    counts = { file: fileMetadata.numRows(), groups: groups.map((g) => g.numRows()) };
    for (const wasmObject of [...groups, fileMetadata, metadata, parquetFile]) wasmObject.free();
  } catch (cause) {
    throw encodeFailed(`reading back the footer parquet-wasm wrote to ${file.tempPath}`, cause);
  }
  if (counts.file !== rows || counts.groups.reduce((a, b) => a + b, 0) !== rows)
    throw LoadError.of(
      'LOAD_ENCODE_FAILED',
      `load: parquet-wasm wrote ${counts.file} rows (row groups: ${counts.groups.join(', ')}) ` +
        `of the ${rows} it was given to ${file.path}`,
    );
}
