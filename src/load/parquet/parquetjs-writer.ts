/**
 * The 'parquetjs' Parquet engine: parquetjs-lite (pure JavaScript) behind the 'wasm' engine's interface. No
 * dictionaries and no zstd; no instants before 1970; no string statistics, as parquetjs-lite orders strings by UTF-16
 * code units and wrong bounds would let readers skip row groups that hold a match.
 */
import parquet, { type FieldDefinition, type OutputStream } from 'parquetjs-lite';
import type { Row } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import type { LoadBatch } from '../arrow/arrow-batches.js';
import type { AtomicFile } from '../file-system/atomic-file.js';
import { invalidValue } from '../../schema/encoding/invalid-value.js';
import { encodeFailed } from '../../text/load-error.js';

const FROM_1970 =
  'an instant from 1970 on (parquetjs-lite refuses earlier ones; the default wasm engine writes any instant)';

/** Writes the batches' rows as Parquet into `file` with parquetjs-lite; returns the rows written (not committed). */
export async function writeParquetJs(
  source: AsyncIterable<LoadBatch>,
  file: AtomicFile,
  { rowGroupSize, metadata, table }: { rowGroupSize: number; metadata: Record<string, string>; table: Table },
): Promise<number> {
  const fields: Record<string, FieldDefinition> = {};
  for (const { name, type } of table.columns) {
    const statistics = type.parquetjs !== 'UTF8';
    fields[name] = { type: type.parquetjs, optional: true, compression: 'SNAPPY', statistics };
  }
  const output: OutputStream = {
    write: (chunk, callback) => void file.write(chunk).then(() => callback(), callback),
    end: (callback) => callback(),
  };
  const failed = (cause: unknown) => encodeFailed(`writing parquet file ${file.path} with parquetjs-lite`, cause);
  const schema = new parquet.ParquetSchema(fields);
  const options = { rowGroupSize, useDataPageV2: false, pageIndex: false };
  const writer = await parquet.ParquetWriter.openStream(schema, output, options).catch((e: unknown) => {
    throw failed(e);
  });
  for (const [key, value] of Object.entries(metadata)) writer.setMetadata(key, value);
  const timestamps = table.columns.filter((c) => c.type.parquetjs === 'TIMESTAMP_MICROS').map((c) => c.name);
  const doubles = table.columns.filter((c) => c.type.parquetjs === 'DOUBLE').map((c) => c.name);
  let rows = 0;
  for await (const { rows: batch, source: from } of source) {
    for (let i = 0; i < batch.length; i++) {
      const row = prepare(batch, i, timestamps, doubles, from.url);
      await writer.appendRow(row).catch((e: unknown) => {
        throw failed(e);
      });
    }
    rows += batch.length;
  }
  await writer.close().catch((e: unknown) => {
    throw failed(e);
  });
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
    if (Object.is(row[name], -0)) row = { ...row, [name]: '-0' };
  }
  return row;
}
