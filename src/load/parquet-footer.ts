/**
 * Reads the row counts from a Parquet file's footer (the last 8 bytes give the footer length; the footer is a
 * thrift FileMetaData, decoded with parquetjs-lite's thrift code). Used to check that a writer wrote every row it
 * was given: parquet-wasm's streaming writer drops write errors silently.
 */
import { open } from 'node:fs/promises';
import parquetUtil from 'parquetjs-lite/lib/util.js';
import parquetTypes from 'parquetjs-lite/gen-nodejs/parquet_types.js';

/** The row counts recorded in a Parquet footer. */
export interface ParquetFooterRows {
  /** `num_rows` of the file. */
  rows: number;
  /** `num_rows` of each row group, in order. */
  rowGroups: number[];
}

/** Reads the row counts of the Parquet file at `path` from its footer alone. */
export async function readParquetFooterRows(path: string): Promise<ParquetFooterRows> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size < 12) throw new Error(`${path} has ${size} bytes, too few for a parquet file`);
    const tail = Buffer.alloc(8);
    await handle.read(tail, 0, 8, size - 8);
    if (tail.toString('latin1', 4) !== 'PAR1') throw new Error(`${path} does not end with the parquet magic`);
    const length = tail.readUInt32LE(0);
    if (length > size - 12) throw new Error(`${path} declares a ${length}-byte footer in a ${size}-byte file`);
    const footer = Buffer.alloc(length);
    await handle.read(footer, 0, length, size - 8 - length);
    const metadata = new parquetTypes.FileMetaData();
    parquetUtil.decodeThrift(metadata, footer);
    const rowGroups = (metadata['row_groups'] as { num_rows: unknown }[]).map((group) => Number(group.num_rows));
    return { rows: Number(metadata['num_rows']), rowGroups };
  } finally {
    await handle.close();
  }
}
