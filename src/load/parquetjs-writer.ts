/**
 * The 'parquetjs' Parquet engine: parquetjs-lite, pure JavaScript, through its public API only. It has no dictionary
 * type and no zstd, so categories are plain UTF8 columns and pages are snappy-compressed. Timestamps are its
 * TIMESTAMP_MICROS (exact to the microsecond), which refuses instants before 1970, so this engine refuses them too.
 * String statistics are off: parquetjs-lite orders strings by UTF-16 code units, not by bytes as Parquet requires,
 * and wrong bounds would let readers skip row groups that hold a match.
 */
import parquet, { type FieldDefinition, type OutputStream, type ParquetWriter } from 'parquetjs-lite';
import type { Row } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import type { LoadBatch } from './arrow-batches.js';
import type { AtomicFile } from './atomic-file.js';
import { invalidValue } from '../schema/encoding/invalid-value.js';
import { encodeFailed } from '../text/load-error.js';

/** What the 'parquetjs' engine needs besides the batches. */
export interface ParquetJsWriteOptions {
  /** Rows per row group (the last one may have fewer). */
  rowGroupSize: number;
  /** Parquet key-value metadata. */
  metadata: Record<string, string>;
  /** The table the batches are rows of. */
  table: Table;
}

const FROM_1970 =
  'an instant from 1970 on (parquetjs-lite refuses earlier ones; the default wasm engine writes any instant)';

/**
 * Writes the batches' rows as Parquet into `file` with parquetjs-lite; returns the rows written. The file is not
 * committed.
 */
export async function writeParquetJs(
  source: AsyncIterable<LoadBatch>,
  file: AtomicFile,
  options: ParquetJsWriteOptions,
): Promise<number> {
  const definition: Record<string, FieldDefinition> = {};
  const columns = options.table.columns;
  for (const { name, type } of columns) {
    const statistics = type.parquetjs !== 'UTF8';
    definition[name] = { type: type.parquetjs, optional: true, compression: 'SNAPPY', statistics };
  }
  const output: OutputStream = {
    write: (chunk, callback) => void file.write(chunk).then(() => callback(), callback),
    end: (callback) => callback(),
  };
  const failed = (cause: unknown) => encodeFailed(`writing parquet file ${file.path} with parquetjs-lite`, cause);
  let writer: ParquetWriter;
  try {
    const schema = new parquet.ParquetSchema(definition);
    const writerOptions = { rowGroupSize: options.rowGroupSize, useDataPageV2: false, pageIndex: false };
    writer = await parquet.ParquetWriter.openStream(schema, output, writerOptions);
  } catch (cause) {
    throw failed(cause);
  }
  for (const [key, value] of Object.entries(options.metadata)) writer.setMetadata(key, value);
  const timestampColumns = columns.filter((c) => c.type.parquetjs === 'TIMESTAMP_MICROS').map((c) => c.name);
  const doubleColumns = columns.filter((c) => c.type.parquetjs === 'DOUBLE').map((c) => c.name);
  let rows = 0;
  for await (const batch of source) {
    for (let i = 0; i < batch.rows.length; i++) {
      const row = prepare(batch.rows, i, timestampColumns, doubleColumns, batch.source.url);
      try {
        await writer.appendRow(row);
      } catch (cause) {
        throw failed(cause);
      }
    }
    rows += batch.rows.length;
  }
  try {
    await writer.close();
  } catch (cause) {
    throw failed(cause);
  }
  return rows;
}

/** The row as parquetjs-lite needs it (values were checked by the Arrow stage): no instant before 1970, -0 as text. */
function prepare(rows: readonly Row[], i: number, timestamps: string[], doubles: string[], place: string): Row {
  let row = rows[i]!;
  for (const name of timestamps) {
    const v = row[name];
    if (typeof v === 'bigint' && v < 0n) throw invalidValue(rows, i, name, v, FROM_1970, place);
  }
  for (const name of doubles) {
    // parquetjs-lite parses doubles with parseFloat(value), and String(-0) is "0"; the text "-0" parses back to -0.
    if (Object.is(row[name], -0)) {
      if (row === rows[i]) row = { ...row };
      row[name] = '-0';
    }
  }
  return row;
}
