/** What a pipeline is: a named extract, transform and load job with its formats, columns and row stages. */
import type { Column } from '../schema/column-type.js';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';
import { withColumns } from '../schema/with-columns.js';
import type { RowStage } from '../transform/filter-rows.js';
import type { Format } from '../snapshot/formats.js';
import type { RunTap } from './run-tap.js';

export type { PipelineIdentity } from './pipeline-identity.js';

/** A named pipeline: the full extract → transform → load job, with its own formats, columns and row stages. */
export interface Pipeline {
  /** Name used by `img-etl run <name>`: the file name in pipelines/ without extension. */
  name: string;
  /** One line for `img-etl run --help`. */
  description: string;
  /** Formats written when the command line gives no `--to`; default `['parquet']`. */
  formats?: readonly Format[];
  /**
   * Columns added to the images table (see `derivedColumn`), after its own and before `extra`; every format writes
   * them. Default none.
   */
  columns?: readonly Column[];
  /** Stages applied in order to the normalised rows before they are written; default none. */
  stages?: readonly RowStage[];
  /**
   * Sinks of the user's own beside the formats the run writes (see `rowSink`): each gets the rows the stages kept;
   * default none.
   */
  sinks?: readonly RunTap[];
}

/** Declares a pipeline (identity; gives the definition its type). */
export function definePipeline(pipeline: Pipeline): Pipeline {
  return pipeline;
}

/** The images table a pipeline writes: the images with the pipeline's columns. */
export function pipelineTable(pipeline: Pipeline): Table {
  return withColumns(IMAGES, pipeline.columns ?? []);
}
