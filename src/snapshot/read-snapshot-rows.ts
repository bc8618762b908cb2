/**
 * Reading a snapshot's rows as a stream of Arrow record batches in file order (ascending id), with memory bounded
 * by one Parquet row group or one Arrow batch whatever the number of rows: Parquet through parquet-wasm reading a
 * file-backed Blob (only the byte ranges it asks for are read), Arrow IPC through apache-arrow reading a file handle
 * at random (a byte stream would make it load an IPC file whole).
 */
import { openAsBlob } from 'node:fs';
import { RecordBatchReader, tableFromIPC, type RecordBatch, type Schema } from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm/node';
import { openRegularFile, whyUnreadable } from '../load/file-system/read-regular-file.js';
import type { Table } from '../schema/table.js';
import { arrowCutShort } from './arrow-cut-short.js';
import { DiffError } from './diff-error.js';
import { resolveSnapshotFile, type SnapshotFileFormat } from './resolve-snapshot-file.js';
import { checkListedRows, verifySnapshotFile, type ListedFile } from './verify-snapshot-file.js';
import { hasTrapped, isTrap, untilTrap, watchTraps } from './wasm-trap.js';

/** Options of `readSnapshotRows`. */
export interface ReadSnapshotOptions {
  /** Rows per record batch read from Parquet (Arrow IPC keeps the file's own batches); default 4096. */
  batchSize?: number;
  /** The table to read from a snapshot folder; default the images. */
  table?: Table;
  /**
   * Columns the batches need, from Parquet: only those are decoded (far less WebAssembly memory), names the file lacks
   * are left out; default all. Arrow IPC batches keep every column.
   */
  columns?: readonly string[];
  /**
   * Rows needed, by their positions in the file (0-based, ascending): only the batches holding one are given, whole,
   * and from Parquet only the row groups holding one are decoded; default every row.
   */
  positions?: ArrayLike<number>;
}

/** An opened snapshot: its schema now, its rows as they are read. */
export interface SnapshotRows {
  /** The data file read. */
  readonly path: string;
  /** Its format. */
  readonly format: SnapshotFileFormat;
  /** The Arrow schema of its rows, metadata included. */
  readonly schema: Schema;
  /** Rows in the file when its footer says (Parquet); undefined for Arrow IPC until read. */
  readonly rows: number | undefined;
  /** The rows in file order; read once. Stopping early releases the file. */
  readonly batches: AsyncIterable<RecordBatch>;
  /** Releases the file; safe to call more than once, and after the batches were read to the end. */
  close(): Promise<void>;
}

const DEFAULT_BATCH_SIZE = 4096;

/**
 * Opens the snapshot at `path` (a snapshot folder, a `--snapshot` base folder, `latest`, or a data file), its data file
 * checked against the manifest beside it (verify-snapshot-file.ts: its size and sha256 first, its rows once known: at
 * opening for Parquet, at the end of the batches for Arrow IPC); a one-line DiffError naming the path when there is
 * none, it does not match its manifest, or it cannot be read.
 */
export async function readSnapshotRows(path: string, options: ReadSnapshotOptions = {}): Promise<SnapshotRows> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw DiffError.of('DIFF_INVALID_OPTION', `diff: batchSize must be a positive integer, got ${batchSize}`);
  const file = await resolveSnapshotFile(path, options.table);
  const listed = await verifySnapshotFile(file.path);
  if (file.format === 'arrow') {
    const opened = await openArrow(file.path, listed);
    const positions = options.positions;
    return positions === undefined ? opened : { ...opened, batches: holding(opened.batches, positions) };
  }
  return openParquet(file.path, batchSize, listed, options.columns, options.positions);
}

/** The batches holding a row of `ordinals` (ascending: places in the stream of rows the batches hold), whole. */
async function* holding(batches: AsyncIterable<RecordBatch>, ordinals: ArrayLike<number>): AsyncGenerator<RecordBatch> {
  let p = 0;
  let offset = 0; // rows of the batches so far
  for await (const batch of batches) {
    offset += batch.numRows;
    if (p < ordinals.length && ordinals[p]! < offset) yield batch;
    while (p < ordinals.length && ordinals[p]! < offset) p++;
    if (p === ordinals.length) return; // the rest is never decoded
  }
}

async function openParquet(
  path: string,
  batchSize: number,
  listed: ListedFile | undefined,
  columns: readonly string[] | undefined,
  positions: ArrayLike<number> | undefined,
): Promise<SnapshotRows> {
  const { reader, release } = await openParquetFile(path);
  const { schema, rows, selection } = await planParquetRead(path, reader, release, listed, positions);
  const all = parquetBatches(path, reader, { batchSize, columns, schema, selection }, release);
  const chosen = selection === undefined ? all : holding(all, selection.ordinals);
  return opened({ path, format: 'parquet', schema, rows }, chosen, () => Promise.resolve(release()));
}

/** A parquet-wasm reader of the file at `path`, and its one release (which also stops watching for traps). */
async function openParquetFile(path: string): Promise<{ reader: parquetWasm.ParquetFile; release: () => void }> {
  const unwatch = watchTraps();
  let reader: parquetWasm.ParquetFile;
  try {
    // A FIFO's Blob would wait for ever on its first read: the path is opened as a regular file first (openAsBlob
    // takes no handle), and the Blob refuses to read a file that changed since it was made.
    await (await openRegularFile(path, { followLink: true })).handle.close();
    reader = await untilTrap(async () => parquetWasm.ParquetFile.fromFile(await openAsBlob(path)));
  } catch (cause) {
    unwatch();
    throw unreadable(path, cause);
  }
  let freed = false;
  const release = (): void => {
    if (!freed && !hasTrapped()) reader.free(); // after a trap, parquet-wasm's objects are left alone
    freed = true;
    unwatch();
  };
  return { reader, release };
}

/** What a Parquet read takes: the batches' size, the columns wanted, the file's schema and row groups to read. */
interface ParquetRead {
  batchSize: number;
  columns: readonly string[] | undefined;
  schema: Schema;
  selection: ReturnType<typeof selectRowGroups> | undefined;
}

/**
 * The file's schema and rows (checked against its manifest) and, with `positions`, the row groups holding them;
 * released when any of it fails.
 */
async function planParquetRead(
  path: string,
  reader: parquetWasm.ParquetFile,
  release: () => void,
  listed: ListedFile | undefined,
  positions: ArrayLike<number> | undefined,
): Promise<Omit<ParquetRead, 'batchSize' | 'columns'> & { rows: number }> {
  let footer: { schema: Schema; rows: number; groupRows: number[] };
  try {
    footer = await untilTrap(() => readFooter(reader, positions !== undefined));
  } catch (cause) {
    release();
    throw unreadable(path, cause);
  }
  const { schema, rows, groupRows } = footer;
  try {
    checkListedRows(path, listed, rows); // before the positions, which an index of other rows may have placed
    const selection = positions === undefined ? undefined : selectRowGroups(groupRows, positions);
    return { schema, rows, selection };
  } catch (error) {
    release();
    throw unreadable(path, error);
  }
}

/** The Parquet file's rows as Arrow record batches; released at the end, on failure, or when stopped early. */
async function* parquetBatches(
  path: string,
  reader: parquetWasm.ParquetFile,
  read: ParquetRead,
  release: () => void,
): AsyncGenerator<RecordBatch> {
  let iterator: AsyncIterator<parquetWasm.RecordBatch> | undefined;
  let ended = false;
  try {
    try {
      if (read.selection?.rowGroups.length === 0) return;
      iterator = await streamParquet(reader, read);
    } catch (cause) {
      throw unreadable(path, cause);
    }
    for (;;) {
      let ipc: Uint8Array | undefined;
      try {
        const next = await untilTrap(() => iterator!.next());
        ended = next.done === true;
        // intoIPCStream frees the WebAssembly batch
        if (next.done !== true) ipc = await untilTrap(() => next.value.intoIPCStream());
      } catch (cause) {
        ended = true; // a failed stream is not cancelled: after a trap, that would wait for ever
        throw unreadable(path, cause);
      }
      if (ipc === undefined) break;
      yield* tableFromIPC(ipc).batches;
    }
  } finally {
    // Stopping early cancels the stream.
    if (iterator !== undefined && !ended) await iterator.return?.().catch(() => undefined);
    release();
  }
}

/** parquet-wasm's stream of the chosen columns (those the file has) of the chosen row groups. */
async function streamParquet(
  reader: parquetWasm.ParquetFile,
  read: ParquetRead,
): Promise<AsyncIterator<parquetWasm.RecordBatch>> {
  const present = read.columns?.filter((name) => read.schema.fields.some((f) => f.name === name));
  const chosen = present === undefined ? {} : { columns: present };
  const groups = read.selection === undefined ? {} : { rowGroups: read.selection.rowGroups };
  // typed any upstream
  const stream = (await untilTrap(() =>
    reader.stream({ batchSize: read.batchSize, ...chosen, ...groups }),
  )) as ReadableStream<parquetWasm.RecordBatch>;
  return stream[Symbol.asyncIterator]();
}

/** A Parquet file's schema, rows, and with `groups` the rows of each row group. */
function readFooter(reader: parquetWasm.ParquetFile, groups: boolean) {
  const schema = tableFromIPC(reader.schema().intoIPCStream()).schema;
  const groupRows: number[] = [];
  const metadata = reader.metadata();
  try {
    const rows = Number(metadata.fileMetadata().numRows());
    if (groups)
      for (const group of metadata.rowGroups()) {
        groupRows.push(Number(group.numRows()));
        group.free();
      }
    return { schema, rows, groupRows };
  } finally {
    metadata.free();
  }
}

/**
 * The row groups holding `positions` (ascending rows of the file), and each position's place among the rows of those
 * groups read one after the other.
 */
function selectRowGroups(groupRows: readonly number[], positions: ArrayLike<number>) {
  const rowGroups: number[] = [];
  const ordinals = new Float64Array(positions.length);
  let [group, start, read] = [0, 0, 0]; // a group, its first row, and the rows of the chosen groups before it
  for (let p = 0; p < positions.length; p++) {
    const at = positions[p]!;
    while (group < groupRows.length && at >= start + groupRows[group]!) {
      if (rowGroups.at(-1) === group) read += groupRows[group]!;
      [start, group] = [start + groupRows[group]!, group + 1];
    }
    if (group === groupRows.length) throw new RangeError(`row ${at} is beyond the file's ${start} rows`);
    if (rowGroups.at(-1) !== group) rowGroups.push(group);
    ordinals[p] = read + at - start;
  }
  return { rowGroups, ordinals };
}

async function openArrow(path: string, listed: ListedFile | undefined): Promise<SnapshotRows> {
  const { reader, release } = await openArrowFile(path);
  const batches = arrowBatches(path, reader, listed, release);
  return opened({ path, format: 'arrow', schema: reader.schema, rows: undefined }, batches, release);
}

/**
 * An apache-arrow reader of the IPC file at `path`, opened on a file handle once its framing is found whole
 * (arrow-cut-short.ts), and the release of both.
 */
async function openArrowFile(path: string) {
  const { handle } = await openRegularFile(path, { followLink: true }).catch((cause: unknown) => {
    throw unreadable(path, cause);
  });
  let reader: Awaited<ReturnType<typeof RecordBatchReader.from>>;
  try {
    const cut = await arrowCutShort(handle); // apache-arrow would take the cut for the end of the rows
    if (cut !== undefined) throw DiffError.of('DIFF_UNREADABLE', `diff: cannot read ${path}: ${cut}`);
    reader = await RecordBatchReader.from(handle);
    await reader.open();
  } catch (cause) {
    await handle.close().catch(() => undefined);
    throw arrowUnreadable(path, cause);
  }
  const release = async (): Promise<void> => {
    await reader.return().catch(() => undefined);
    await handle.close().catch(() => undefined);
  };
  return { reader, release };
}

/** The IPC file's batches, its rows checked against the manifest at the end; released at the end or when stopped. */
async function* arrowBatches(
  path: string,
  reader: AsyncIterable<RecordBatch>,
  listed: ListedFile | undefined,
  release: () => Promise<void>,
): AsyncGenerator<RecordBatch> {
  let rows = 0;
  try {
    const iterator = reader[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<RecordBatch>;
      try {
        next = await iterator.next();
      } catch (cause) {
        throw arrowUnreadable(path, cause);
      }
      if (next.done) break;
      rows += next.value.numRows;
      yield next.value;
    }
    checkListedRows(path, listed, rows); // read to the end: its footer does not give the rows
  } finally {
    await release();
  }
}

/**
 * The SnapshotRows of an opened file; `close` stops the batches first (running their clean-up if they started), then
 * releases.
 */
function opened(
  file: Omit<SnapshotRows, 'batches' | 'close'>,
  batches: AsyncGenerator<RecordBatch>,
  release: () => Promise<void>,
): SnapshotRows {
  const close = async (): Promise<void> => {
    await batches.return(undefined).catch(() => undefined);
    await release();
  };
  return { ...file, batches, close };
}

function unreadable(path: string, cause: unknown): DiffError {
  if (cause instanceof DiffError) return cause;
  const detail = isTrap(cause)
    ? `cannot read ${path}: parquet-wasm failed on its bytes (${cause.name}: ${cause.message}): the file is damaged`
    : whyUnreadable(path, cause);
  return DiffError.of('DIFF_UNREADABLE', `diff: ${detail}`, cause);
}

/**
 * unreadable, for apache-arrow's reader: on bytes it cannot parse it trips over them (a TypeError or RangeError such as
 * `Cannot read properties of null (reading 'fieldsLength')`), which says nothing to a reader unless told so.
 */
function arrowUnreadable(path: string, cause: unknown): DiffError {
  const tripped = (cause instanceof TypeError || cause instanceof RangeError) && !('code' in cause); // not Node's own
  if (!tripped) return unreadable(path, cause);
  const detail = `apache-arrow failed on its bytes (${cause.name}: ${cause.message}): the file is damaged or cut short`;
  return DiffError.of('DIFF_UNREADABLE', `diff: cannot read ${path}: ${detail}`, cause);
}
