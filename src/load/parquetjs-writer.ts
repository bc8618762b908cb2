/**
 * The 'parquetjs' Parquet engine: parquetjs-lite, pure JavaScript. It has no dictionary type and no zstd, so
 * categories are plain UTF8 columns and pages are snappy-compressed. Its TIMESTAMP_MICROS type refuses instants
 * before 1970, so timestamps are written as INT64 and the footer is written here, marking them
 * TIMESTAMP(isAdjustedToUTC = true, MICROS) — which keeps microseconds and UTC for every reader — and strings as
 * STRING. String statistics are off: parquetjs-lite orders strings by UTF-16 code units, not by bytes as Parquet
 * requires, and wrong bounds would let readers skip row groups that hold a match.
 */
import parquet, { type FieldDefinition, type OutputStream, type ParquetWriter } from 'parquetjs-lite';
import parquetUtil from 'parquetjs-lite/lib/util.js';
import parquetTypes from 'parquetjs-lite/gen-nodejs/parquet_types.js';
import { COLUMNS, type ColumnKind } from '../schema/columns.js';
import type { Row } from '../schema/row.js';
import { invalidValue } from './invalid-value.js';
import type { LoadBatch } from './arrow-batches.js';
import type { AtomicFile } from './atomic-file.js';
import { encodeFailed } from './load-error.js';

/** What the 'parquetjs' engine needs besides the batches. */
export interface ParquetJsWriteOptions {
  /** Rows per row group (the last one may have fewer). */
  rowGroupSize: number;
  /** Parquet key-value metadata. */
  metadata: Record<string, string>;
}

// parquetjs-lite converts INT64 values through a JS number, which is exact up to 2^53 µs (years 1685 to 2255).
const MAX_EXACT_MICROS = 2n ** 53n;

const TYPE_BY_KIND: Record<ColumnKind, string> = {
  int64: 'INT64',
  float64: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'INT64',
  string: 'UTF8',
  category: 'UTF8',
  json: 'UTF8',
};

const TEXT_KINDS: ReadonlySet<ColumnKind> = new Set(['string', 'category', 'json']);

/** Writes the batches' rows as Parquet into `file` with parquetjs-lite; returns the rows written. The file is not committed. */
export async function writeParquetJs(source: AsyncIterable<LoadBatch>, file: AtomicFile, options: ParquetJsWriteOptions): Promise<number> {
  const definition: Record<string, FieldDefinition> = {};
  for (const column of COLUMNS) {
    definition[column.name] = { type: TYPE_BY_KIND[column.kind], optional: true, compression: 'SNAPPY', statistics: !TEXT_KINDS.has(column.kind) };
  }
  const schema = new parquet.ParquetSchema(definition);
  const output: OutputStream = {
    write: (chunk, callback) => void file.write(chunk).then(() => callback(), callback),
    end: (callback) => callback(),
  };
  let writer: ParquetWriter;
  try {
    writer = await parquet.ParquetWriter.openStream(schema, output, { rowGroupSize: options.rowGroupSize, useDataPageV2: false, pageIndex: false });
  } catch (cause) {
    throw encodeFailed(`writing parquet file ${file.path} with parquetjs-lite`, cause);
  }
  writer.envelopeWriter.writeFooter = () => writer.envelopeWriter.writeSection(footer(writer, options.metadata));
  const timestampColumns = COLUMNS.filter((c) => c.kind === 'timestamp').map((c) => c.name);
  const floatColumns = COLUMNS.filter((c) => c.kind === 'float64').map((c) => c.name);
  let rows = 0;
  for await (const batch of source) {
    for (let i = 0; i < batch.rows.length; i++) {
      const row = prepare(batch.rows, i, timestampColumns, floatColumns, batch.source.url);
      try {
        await writer.appendRow(row);
      } catch (cause) {
        throw encodeFailed(`writing parquet file ${file.path} with parquetjs-lite`, cause);
      }
    }
    rows += batch.rows.length;
  }
  try {
    await writer.close();
  } catch (cause) {
    throw encodeFailed(`writing parquet file ${file.path} with parquetjs-lite`, cause);
  }
  return rows;
}

/** The row as parquetjs-lite needs it (values were checked by the Arrow stage): timestamps in its exact range, -0 as text. */
function prepare(rows: readonly Row[], i: number, timestampColumns: readonly string[], floatColumns: readonly string[], place: string): Row {
  let row = rows[i]!;
  for (const name of timestampColumns) {
    const v = row[name];
    if (typeof v === 'bigint' && (v > MAX_EXACT_MICROS || v < -MAX_EXACT_MICROS)) {
      throw invalidValue(rows, i, name, v, 'microseconds within ±2^53 (the parquetjs engine is exact for years 1685 to 2255)', place);
    }
  }
  for (const name of floatColumns) {
    // parquetjs-lite parses doubles with parseFloat(value), and String(-0) is "0"; the text "-0" parses back to -0.
    if (Object.is(row[name], -0)) {
      if (row === rows[i]) row = { ...row };
      row[name] = '-0';
    }
  }
  return row;
}

/** The file footer: parquetjs-lite's own, plus logical types (UTC microsecond timestamps, strings) and our key-value metadata. */
function footer(writer: ParquetWriter, metadata: Record<string, string>): Buffer {
  const t = parquetTypes;
  const schema: Record<string, unknown>[] = [new t.SchemaElement({ name: 'root', num_children: COLUMNS.length })];
  for (const column of COLUMNS) {
    const element = new t.SchemaElement({ name: column.name, repetition_type: t.FieldRepetitionType['OPTIONAL'], type: t.Type[TYPE_BY_KIND[column.kind] === 'UTF8' ? 'BYTE_ARRAY' : TYPE_BY_KIND[column.kind]!] });
    if (column.kind === 'timestamp') {
      element['converted_type'] = t.ConvertedType['TIMESTAMP_MICROS'];
      element['logicalType'] = new t.LogicalType({ TIMESTAMP: new t.TimestampType({ isAdjustedToUTC: true, unit: new t.TimeUnit({ MICROS: new t.MicroSeconds() }) }) });
    } else if (TEXT_KINDS.has(column.kind)) {
      element['converted_type'] = t.ConvertedType['UTF8'];
      element['logicalType'] = new t.LogicalType({ STRING: new t.StringType() });
    }
    schema.push(element);
  }
  const fileMetaData = new t.FileMetaData({
    version: 1,
    created_by: 'parquetjs-lite 0.8.7 (img-etl)',
    num_rows: writer.envelopeWriter.rowCount,
    row_groups: writer.envelopeWriter.rowGroups,
    schema,
    key_value_metadata: Object.entries(metadata).map(([key, value]) => new t.KeyValue({ key, value })),
  });
  const body = parquetUtil.serializeThrift(fileMetaData);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(body.length, 0);
  trailer.write('PAR1', 4, 'latin1');
  return Buffer.concat([body, trailer]);
}
