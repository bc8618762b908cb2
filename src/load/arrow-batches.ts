/**
 * The Arrow stage: each page's rows become one Arrow RecordBatch, built once and shared by every sink.
 */
import { RecordBatch, Struct, makeData, type Data, type DataType, type Dictionary, type Int32, type Schema, type Utf8 } from 'apache-arrow';
import { COLUMNS, type Column } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { boolData, float64Data, int64Data, timestampData, utf8Data, type BatchPlace } from './arrow-column-data.js';
import { arrowSchema } from './arrow-schema.js';
import { CategoryDictionary } from './category-dictionary.js';

/** A page of rows together with its Arrow RecordBatch. */
export type LoadBatch = RowBatch & {
  /** The rows as an Arrow RecordBatch with the schema of `arrowSchema()`. */
  arrow: RecordBatch;
};

/** Builds RecordBatches of the output schema; category columns share one growing dictionary per column across batches. */
export class ArrowBatchBuilder {
  /** The schema of every batch built (no metadata). */
  readonly schema: Schema = arrowSchema();
  private readonly encoders: ((rows: readonly Row[], place: BatchPlace) => Data<DataType>)[];

  constructor() {
    this.encoders = COLUMNS.map((column, i) => encoderFor(column, this.schema.fields[i]!.type));
  }

  /** Builds the RecordBatch of `rows`; `place` (the page URL) names the batch in errors. Zero rows are fine. After an error, discard the builder. */
  build(rows: readonly Row[], place: BatchPlace = 'a batch'): RecordBatch {
    const children = this.encoders.map((encode) => encode(rows, place));
    const data = makeData({ type: new Struct(this.schema.fields), length: rows.length, nullCount: 0, children });
    return new RecordBatch(this.schema, data);
  }
}

/** Stage: adds to each page its Arrow RecordBatch; category dictionaries grow across the batches of this stream. */
export async function* toArrowBatches(source: AsyncIterable<RowBatch>): AsyncIterable<LoadBatch> {
  const builder = new ArrowBatchBuilder();
  for await (const batch of source) {
    yield { ...batch, arrow: builder.build(batch.rows, batch.source.url) };
  }
}

function encoderFor(column: Column, type: DataType): (rows: readonly Row[], place: BatchPlace) => Data<DataType> {
  const name = column.name;
  switch (column.kind) {
    case 'int64':
      return (rows, place) => int64Data(rows, name, place);
    case 'float64':
      return (rows, place) => float64Data(rows, name, place);
    case 'boolean':
      return (rows, place) => boolData(rows, name, place);
    case 'timestamp':
      return (rows, place) => timestampData(rows, name, place);
    case 'string':
    case 'json':
      return (rows, place) => utf8Data(rows, name, place);
    case 'category': {
      const dictionary = new CategoryDictionary(type as Dictionary<Utf8, Int32>);
      return (rows, place) => dictionary.encode(rows, name, place);
    }
  }
}
