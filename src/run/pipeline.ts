import type { RowStage } from '../transform/filter-rows.js';
import type { Format } from './formats.js';

/** A named pipeline: the full extract → transform → load job, with its own formats and row stages. */
export interface Pipeline {
  /** Name used by `img-etl run <name>`: the file name in pipelines/ without extension. */
  name: string;
  /** One line for `img-etl run --help`. */
  description: string;
  /** Formats written when the command line gives no `--to`; default `['parquet']`. */
  formats?: readonly Format[];
  /** Stages applied in order to the normalised rows before they are written; default none. */
  stages?: readonly RowStage[];
}

/** Declares a pipeline (identity; gives the definition its type). */
export function definePipeline(pipeline: Pipeline): Pipeline {
  return pipeline;
}
