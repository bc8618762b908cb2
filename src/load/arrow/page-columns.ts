/**
 * A staged page's columns: its valid records normalised and encoded once, when the page is staged, as one Arrow record
 * batch, so that the write never parses the page again. One more column holds what normalisation replaced in each row,
 * so that the manifest counts only the rows written. What is staged is what the run's write consumes: the table's
 * columns, each row's CSV record beside them for a run that writes CSV too, or for a run whose write reads no row (CSV
 * alone) its CSV records and each row's collection only.
 */
import * as arrow from 'apache-arrow';
import { emptyNormalisationCounts, type NormalisationCounts } from '../../schema/normalisation-counts.js';
import type { PageRecords, Row } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { utf8FromStrings } from '../../schema/encoding/utf8-from-strings.js';
import { attachExtraTexts } from '../../transform/extra-texts.js';
import { normaliseRecord } from '../../transform/normalise.js';
import { ArrowBatchBuilder } from './arrow-batches.js';
import { arrowSchema } from './arrow-schema.js';
import { batchBufferNames, batchBuffers, readBatchBuffers } from './batch-buffers.js';
import { formatCsvRecords } from '../csv/csv-format.js';
import { valuesOf } from './rows-of-batch.js';

/** The field that holds what normalisation replaced in a row (JSON of its counts, null when nothing). */
const REPLACED = 'img-etl.replaced';
/** The field that holds each row's CSV record, by whether formulas were neutralised. */
const CSV = { neutralised: 'img-etl.csv', kept: 'img-etl.csv-formulas-kept' } as const;
/** How both CSV fields' names begin. */
const CSV_PREFIX = 'img-etl.csv';
/** The column a row's collection is read from. */
const COLLECTION = 'collection_id';

/** A staged page's columns read back. */
export interface PageColumns {
  /** The valid records' rows, in position order: the table's columns, unless `rows` is false. */
  batch: arrow.RecordBatch;
  /** Whether the batch holds the table's columns (false: staged for a write that reads no row). */
  rows: boolean;
  /** What normalisation replaced in a row, as JSON text; null when nothing. */
  replaced: (row: number) => string | null;
  /** A row's `collection_id`; null when it has none. */
  collection: (row: number) => number | null;
  /**
   * Per row, when it was staged: its CSV record (LF-terminated), as the builtin CSV writer writes it; the batch's
   * column `column`.
   */
  csv?: { records: arrow.Data<arrow.Utf8>; neutraliseFormulas: boolean; column: number };
}

/** Each row's CSV record, staged for a run that writes CSV with the builtin writer. */
export interface StagedCsv {
  neutraliseFormulas: boolean;
}

/**
 * What a run stages of each page, and its write consumes: the table's columns (`rows`), each row's CSV record, or both.
 * A write that reads no row (CSV alone: no index, report, tap or stage) needs only the CSV records.
 */
export type StagedColumns = { rows: true; csv?: StagedCsv } | { rows: false; csv: StagedCsv };

/**
 * Whether `columns` hold what a write that consumes `consumed` reads, else the page is encoded again for it: the rows
 * (CSV records staged otherwise, or none, are then written from the rows), or for a write that reads no row the CSV
 * records alone, as it staged them (every batch then takes its records from one column of its pages).
 */
export function holdsWhatIsConsumed(columns: PageColumns, consumed: StagedColumns): boolean {
  if (consumed.rows) return columns.rows;
  return !columns.rows && columns.csv?.neutraliseFormulas === consumed.csv.neutraliseFormulas;
}

/**
 * The columns of a page's valid records as rows of `table` (or, for a write that reads no row, each row's collection),
 * with their CSV records when `staged.csv` is given, as bytes to stage; undefined when no record is valid.
 */
export function encodePageColumns(
  table: Table,
  page: PageRecords,
  staged: StagedColumns = { rows: true },
): Uint8Array | undefined {
  const { records, ids } = page;
  if (page.extra.length > 0) attachExtraTexts(page.body, records, page.extra, table.knownKeys, page);
  const rows = [];
  const replaced: (string | null)[] = [];
  for (let position = 0; position < ids.length; position++) {
    if (ids[position] === null) continue;
    const counts = emptyNormalisationCounts();
    rows.push(normaliseRecord(records[position] as Record<string, unknown>, counts, table));
    replaced.push(replacedText(counts));
  }
  if (rows.length === 0) return undefined;
  const { csv } = staged;
  const csvField = csv === undefined ? undefined : csv.neutraliseFormulas ? CSV.neutralised : CSV.kept;
  const schema = stagedSchema(table, staged.rows, csvField);
  const children = staged.rows
    ? [...new ArrowBatchBuilder(table).build(rows, page.url).data.children, utf8FromStrings(arrow, replaced)]
    : [utf8FromStrings(arrow, replaced), ...collectionColumn(table, schema, rows, page.url)];
  if (csv !== undefined) children.push(csvRecords(rows, page.url, csv.neutraliseFormulas, table));
  const type = new arrow.Struct(schema.fields);
  return batchBuffers(
    new arrow.RecordBatch(schema, arrow.makeData({ type, length: rows.length, nullCount: 0, children })),
  );
}

/** Each row's CSV record, LF-terminated, as one UTF-8 column. */
function csvRecords(rows: Row[], place: string, neutraliseFormulas: boolean, table: Table): arrow.Data<arrow.Utf8> {
  const { bytes, ends } = formatCsvRecords(rows, place, neutraliseFormulas, table);
  const valueOffsets = Int32Array.from([0, ...ends]);
  return arrow.makeData({ type: new arrow.Utf8(), length: rows.length, nullCount: 0, valueOffsets, data: bytes });
}

/** The rows' `collection_id` as the table encodes it into `schema`'s field (none when the table has no such column). */
function collectionColumn(table: Table, schema: arrow.Schema, rows: Row[], place: string): arrow.Data[] {
  const field = schema.fields.find((f) => f.name === COLLECTION) as arrow.Field<arrow.DataType> | undefined;
  if (field === undefined) return [];
  const encode = table.columns[table.names.indexOf(COLLECTION)]!.type.arrowEncoder(arrow, field.type);
  return [encode({ name: COLLECTION, values: rows.map((row) => row[COLLECTION] ?? null), rows, place })];
}

/**
 * The schema of a page's staged columns: the table's then what normalisation replaced, or for a write that reads no
 * row what normalisation replaced then the table's `collection_id`; and maybe CSV records.
 */
const stagedSchemas = new WeakMap<Table, Map<string, arrow.Schema>>();
function stagedSchema(table: Table, rows: boolean, csvField: string | undefined): arrow.Schema {
  let schemas = stagedSchemas.get(table);
  if (schemas === undefined) stagedSchemas.set(table, (schemas = new Map<string, arrow.Schema>()));
  const key = `${rows}:${csvField ?? ''}`;
  let schema = schemas.get(key);
  if (schema === undefined) {
    const tableFields = arrowSchema(undefined, table).fields;
    const replaced = new arrow.Field(REPLACED, new arrow.Utf8(), true);
    const fields = rows ? [...tableFields, replaced] : [replaced, ...tableFields.filter((f) => f.name === COLLECTION)];
    if (csvField !== undefined) fields.push(new arrow.Field(csvField, new arrow.Utf8(), false));
    schemas.set(key, (schema = new arrow.Schema(fields)));
  }
  return schema;
}

/** A page's columns from its staged bytes; throws when they are not rows of `table` (staged for another table). */
export function decodePageColumns(table: Table, bytes: Uint8Array): PageColumns {
  let batch: arrow.RecordBatch;
  const names = batchBufferNames(bytes);
  const rows = names[0] !== REPLACED;
  // any other column, or one out of place, is found by readBatchBuffers against the staged schema
  const csvField = names.find((name) => name.startsWith(CSV_PREFIX));
  try {
    if (csvField !== undefined && csvField !== CSV.neutralised && csvField !== CSV.kept)
      throw new TypeError(`a column ${csvField} of no CSV records img-etl stages`);
    batch = readBatchBuffers(stagedSchema(table, rows, csvField), bytes);
  } catch (error) {
    const message = `a staged page's columns are not those of table ${table.name}: ${(error as Error).message}`;
    throw new TypeError(message, { cause: error });
  }
  return pageColumnsOf(table, batch);
}

/** A batch of a page's staged columns (its rows, or rows of pages staged alike) as PageColumns. */
export function pageColumnsOf(table: Table, batch: arrow.RecordBatch): PageColumns {
  const names = batch.schema.fields.map((field) => field.name);
  const rows = names[0] !== REPLACED;
  const read = valuesOf(batch.data.children[names.indexOf(REPLACED)]!);
  const replaced = (row: number) => read(row) as string | null;
  const at = names.indexOf(COLLECTION);
  const cid = at === -1 ? () => null : valuesOf(batch.data.children[at]!);
  const collection = (row: number) => cid(row) as number | null;
  const column = names.findIndex((name) => name.startsWith(CSV_PREFIX));
  if (column === -1) return { batch, rows, replaced, collection };
  const records = batch.data.children[column] as arrow.Data<arrow.Utf8>;
  const neutraliseFormulas = names[column] === CSV.neutralised;
  return { batch, rows, replaced, collection, csv: { records, neutraliseFormulas, column } };
}

/** What one row's normalisation replaced, as JSON text; null when nothing. */
function replacedText(counts: NormalisationCounts): string | null {
  for (const _ in counts.sentinelToNull) return JSON.stringify(counts);
  for (const _ in counts.emptyToNull) return JSON.stringify(counts);
  return counts.recordsWithExtra > 0 ? JSON.stringify(counts) : null;
}
