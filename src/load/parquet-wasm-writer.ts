/**
 * The 'wasm' Parquet engine: parquet-wasm (the Rust parquet crate) streaming over a ReadableStream of record
 * batches, zstd-compressed and dictionary-encoded, with row groups of a fixed number of rows.
 * Batches cross into WebAssembly through an IPC stream round trip; the writer pulls them as it goes, so memory holds
 * at most one row group being encoded and one hand-over group, whatever the number of batches.
 */
import { Table, tableToIPC, type RecordBatch } from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm/node';
import type { AtomicFile } from './atomic-file.js';
import { encodeFailed, LoadError } from '../text/load-error.js';
import { readParquetFooterRows } from './parquet-footer.js';
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
 * Writes Arrow record batches (all of one schema) as Parquet into `file` with parquet-wasm; returns the rows written.
 * The file is not committed.
 */
export async function writeParquetWasm(
  source: AsyncIterable<RecordBatch>,
  file: AtomicFile,
  options: ParquetWasmWriteOptions,
): Promise<number> {
  const iterator = source[Symbol.asyncIterator]();
  let rows = 0;
  let handedOver = false;
  let ended = false;
  let stopped = false;
  let sourceFailure: { error: unknown } | undefined;
  // parquet-wasm ignores errors of the input stream, so the stream never errors: it ends, and the failure is kept here.
  const input = new ReadableStream<parquetWasm.RecordBatch>(
    {
      pull: async (controller) => {
        try {
          const group: RecordBatch[] = [];
          let groupRows = 0;
          while (!stopped && !ended && groupRows < HANDOVER_ROWS) {
            const next = await iterator.next();
            if (next.done) ended = true;
            else if (next.value.numRows > 0) {
              group.push(next.value);
              groupRows += next.value.numRows;
            }
          }
          if (stopped || (group.length === 0 && handedOver)) return controller.close();
          if (group.length === 0) group.push(options.empty);
          for (const batch of toWasmBatches(group)) controller.enqueue(batch);
          handedOver = true;
          rows += groupRows;
        } catch (error) {
          sourceFailure = { error };
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
  try {
    let output: ReadableStream<Uint8Array>;
    try {
      output = (await parquetWasm.transformParquetStream(
        input,
        writerProperties(options),
      )) as ReadableStream<Uint8Array>; // typed any upstream
    } catch (cause) {
      throw sourceFailure
        ? sourceFailure.error
        : encodeFailed(`writing parquet file ${file.path} with parquet-wasm`, cause);
    }
    // The file's last bytes are held back until the end, so that the footer's key-value entries can be put in order
    // before they are written (see parquet-key-value-order.ts): then the same data always gives the same bytes.
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
    if (sourceFailure) throw sourceFailure.error;
    return rows;
  } finally {
    stopped = true; // the Rust writer goes on pulling after its output fails; make it stop
    await iterator.return?.();
  }
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
 * Checks that the Parquet file being written holds exactly `rows` rows in its footer and row groups: parquet-wasm drops
 * write errors silently.
 */
export async function checkParquetFooter(file: AtomicFile, rows: number, writer: string): Promise<void> {
  await file.flush();
  const footer = await readParquetFooterRows(file.tempPath).catch((cause: unknown) => {
    throw new LoadError({
      code: 'LOAD_ENCODE_FAILED',
      message: `load: ${writer} wrote an unreadable parquet footer to ${file.tempPath}: ${(cause as Error).message}`,
      cause,
    });
  });
  if (footer.rows !== rows || footer.rowGroups.reduce((a, b) => a + b, 0) !== rows) {
    throw new LoadError({
      code: 'LOAD_ENCODE_FAILED',
      message:
        `load: ${writer} wrote ${footer.rows} rows (row groups: ` +
        `${footer.rowGroups.join(', ')}) of the ${rows} it was given to ${file.path}`,
    });
  }
}
