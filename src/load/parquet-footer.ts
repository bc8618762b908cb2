/**
 * Reads the row counts from a Parquet file's footer (the last 8 bytes give the footer length; the footer is a
 * thrift compact-protocol FileMetaData: field 3 `num_rows`, field 4 `row_groups`, each RowGroup's field 3 its
 * `num_rows`). Used to check that a writer wrote every row it was given: parquet-wasm's streaming writer drops
 * write errors silently.
 */
import { open } from 'node:fs/promises';
import { CompactReader, I64, LIST, STRUCT } from './thrift-compact-reader.js';

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
    return footerRows(footer);
  } finally {
    await handle.close();
  }
}

/** The row counts of a FileMetaData. */
function footerRows(footer: Uint8Array): ParquetFooterRows {
  const reader = new CompactReader(footer, 0, footer.length);
  let rows: number | undefined;
  let rowGroups: number[] | undefined;
  reader.fields((field, type) => {
    if (field === 3 && type === I64) rows = reader.integer();
    else if (field === 4 && type === LIST) {
      const { size, elementType } = reader.listHeader();
      if (elementType !== STRUCT) throw new Error('row_groups is not a list of structs');
      rowGroups = [];
      for (let i = 0; i < size; i++) {
        let groupRows: number | undefined;
        reader.fields((groupField, groupType) => {
          if (groupField === 3 && groupType === I64) groupRows = reader.integer();
          else reader.skip(groupType);
          return false;
        });
        if (groupRows === undefined) throw new Error(`row group ${i} has no num_rows`);
        rowGroups.push(groupRows);
      }
    } else reader.skip(type);
    return false;
  });
  if (rows === undefined || rowGroups === undefined) throw new Error('the footer has no num_rows or no row_groups');
  return { rows, rowGroups };
}
