/**
 * The Arrow stage: each page's rows become one Arrow RecordBatch, built once and shared by every sink.
 */
import * as arrow from 'apache-arrow';
import type { ArrowEncoder } from '../../schema/column-type.js';
import { IMAGES } from '../../schema/columns.js';
import { readRow } from '../../schema/read-row.js';
import type { Row, RowBatch, RowValue } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { arrowSchema } from './arrow-schema.js';
import type { BatchPlace } from '../../schema/encoding/invalid-value.js';

/** A page of rows together with its Arrow RecordBatch. */
export type LoadBatch = RowBatch & {
  /** The rows as an Arrow RecordBatch with the schema of `arrowSchema()`. */
  arrow: arrow.RecordBatch;
};

/** Builds RecordBatches of a table's schema; category columns share one growing dictionary per column. */
export class ArrowBatchBuilder {
  /** The schema of every batch built (no metadata). */
  readonly schema: arrow.Schema<arrow.TypeMap>;
  private readonly encoders: ArrowEncoder[];

  /** A builder of batches of `table` (default the images). */
  constructor(private readonly table: Table = IMAGES) {
    this.schema = arrowSchema(undefined, table);
    this.encoders = table.columns.map((c, j) => c.type.arrowEncoder(arrow, this.schema.fields[j]!.type));
  }

  /**
   * Builds the RecordBatch of `rows`; `place` (the page URL) names the batch in errors. Zero rows are fine. After an
   * error, discard the builder.
   */
  build(rows: readonly Row[], place: BatchPlace = 'a batch'): arrow.RecordBatch {
    // The rows' values, column by column: each row is read once, in one pass over its properties (read-row.ts).
    const { names } = this.table;
    const columns = names.map(() => new Array<RowValue | undefined>(rows.length));
    const values = new Array<RowValue | undefined>(columns.length);
    for (let i = 0; i < rows.length; i++) {
      readRow(rows[i]!, values, names);
      for (let j = 0; j < columns.length; j++) columns[j]![i] = values[j];
    }
    const children = names.map((name, j) => this.encoders[j]!({ name, values: columns[j]!, rows, place }));
    const type = new arrow.Struct(this.schema.fields);
    const data = arrow.makeData({ type, length: rows.length, nullCount: 0, children });
    return new arrow.RecordBatch(this.schema, data);
  }
}

/**
 * Stage: adds to each page its Arrow RecordBatch of `table`; category dictionaries grow across the batches. Batches
 * that come with theirs (staged as columns: arrow-gather.ts) pass as they are; a stream must not mix the two.
 */
export async function* toArrowBatches(
  source: AsyncIterable<RowBatch>,
  table: Table = IMAGES,
): AsyncIterable<LoadBatch> {
  const builder = new ArrowBatchBuilder(table);
  let gathered: boolean | undefined;
  for await (const batch of source) {
    const { arrow: given } = batch as Partial<LoadBatch>;
    if (gathered !== undefined && gathered !== (given !== undefined))
      throw new TypeError('toArrowBatches: a stream mixes batches with and without their Arrow batch');
    gathered = given !== undefined;
    yield given !== undefined ? (batch as LoadBatch) : { ...batch, arrow: builder.build(batch.rows, batch.source.url) };
  }
}
