/**
 * A staged page's columns: its valid records normalised and encoded once, when the page is staged, as one Arrow record
 * batch, so that the write never parses the page again. One more column holds what normalisation replaced in each row,
 * so that the manifest counts only the rows written.
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

/** A staged page's columns read back. */
export interface PageColumns {
  /** The valid records' rows, in position order. */
  batch: arrow.RecordBatch;
  /** What normalisation replaced in a row, as JSON text; null when nothing. */
  replaced: (row: number) => string | null;
  /** A row's `collection_id`; null when it has none. */
  collection: (row: number) => number | null;
  /** Per row, when it was staged: its CSV record (LF-terminated), as the builtin CSV writer writes it. */
  csv?: { records: arrow.Data<arrow.Utf8>; neutraliseFormulas: boolean };
}

/** What to stage beside a page's columns: each row's CSV record, for a run that writes CSV with the builtin writer. */
export interface StagedCsv {
  neutraliseFormulas: boolean;
}

/**
 * The columns of a page's valid records as rows of `table`, with their CSV records when `csv` is given, as bytes to
 * stage; undefined when no record is valid.
 */
export function encodePageColumns(table: Table, page: PageRecords, csv?: StagedCsv): Uint8Array | undefined {
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
  const batch = new ArrowBatchBuilder(table).build(rows, page.url);
  const csvField = csv === undefined ? undefined : csv.neutraliseFormulas ? CSV.neutralised : CSV.kept;
  const schema = stagedSchema(table, csvField);
  const children = [...batch.data.children, utf8FromStrings(arrow, replaced)];
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

/** The schema of a page's staged columns: the table's, what normalisation replaced, and maybe CSV records. */
const stagedSchemas = new WeakMap<Table, Map<string, arrow.Schema>>();
function stagedSchema(table: Table, csvField: string | undefined): arrow.Schema {
  let schemas = stagedSchemas.get(table);
  if (schemas === undefined) stagedSchemas.set(table, (schemas = new Map<string, arrow.Schema>()));
  let schema = schemas.get(csvField ?? '');
  if (schema === undefined) {
    const fields = [...arrowSchema(undefined, table).fields, new arrow.Field(REPLACED, new arrow.Utf8(), true)];
    if (csvField !== undefined) fields.push(new arrow.Field(csvField, new arrow.Utf8(), false));
    schemas.set(csvField ?? '', (schema = new arrow.Schema(fields)));
  }
  return schema;
}

/** A page's columns from its staged bytes; throws when they are not rows of `table` (staged for another table). */
export function decodePageColumns(table: Table, bytes: Uint8Array): PageColumns {
  let batch: arrow.RecordBatch;
  const csvField = batchBufferNames(bytes)[table.names.length + 1];
  try {
    if (csvField !== undefined && csvField !== CSV.neutralised && csvField !== CSV.kept)
      throw new TypeError(`a column ${csvField} after the table's`);
    batch = readBatchBuffers(stagedSchema(table, csvField), bytes);
  } catch (error) {
    const message = `a staged page's columns are not those of table ${table.name}: ${(error as Error).message}`;
    throw new TypeError(message, { cause: error });
  }
  return pageColumnsOf(table, batch);
}

/** A batch of a page's staged columns (its rows, or rows of pages staged alike) as PageColumns. */
export function pageColumnsOf(table: Table, batch: arrow.RecordBatch): PageColumns {
  const n = table.names.length;
  const csvField = batch.schema.fields[n + 1]?.name;
  const read = valuesOf(batch.data.children[n]!);
  const replaced = (row: number) => read(row) as string | null;
  const at = table.names.indexOf('collection_id');
  const cid = at === -1 ? () => null : valuesOf(batch.data.children[at]!);
  const collection = (row: number) => cid(row) as number | null;
  if (csvField === undefined) return { batch, replaced, collection };
  const records = batch.data.children[n + 1] as arrow.Data<arrow.Utf8>;
  return { batch, replaced, collection, csv: { records, neutraliseFormulas: csvField === CSV.neutralised } };
}

/** What one row's normalisation replaced, as JSON text; null when nothing. */
function replacedText(counts: NormalisationCounts): string | null {
  for (const _ in counts.sentinelToNull) return JSON.stringify(counts);
  for (const _ in counts.emptyToNull) return JSON.stringify(counts);
  return counts.recordsWithExtra > 0 ? JSON.stringify(counts) : null;
}
