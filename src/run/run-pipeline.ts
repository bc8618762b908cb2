/**
 * Running a pipeline: how the default `img-etl` job (pipelines/full-snapshot), `img-etl run <pipeline>` and a library
 * user's own pipeline all run, through the one runner (runSnapshot) with the pipeline's table, stages and identity.
 */
import { LoadError } from '../text/load-error.js';
import type { Pipeline } from './pipeline.js';
import { pipelineRunOptions } from './pipeline-run-options.js';
import { runSnapshot, type SnapshotOptions, type SnapshotResult } from './run-snapshot.js';

/** The runner's options a pipeline sets itself: a caller's would be dropped without a word. */
const PIPELINE_OWN = ['stages', 'table', 'pipeline'] as const;

/**
 * Runs `pipeline` as `img-etl run` does: complete, in id order, resumable and published atomically into
 * `options.outDir`; `options.formats` overrides the pipeline's own; `options.taps` (e.g. `reportTap()`) come after the
 * pipeline's sinks. `options` giving `stages`, `table` or `pipeline`, which the pipeline sets, is refused.
 */
export async function runPipeline(pipeline: Pipeline, options: SnapshotOptions = {}): Promise<SnapshotResult> {
  // async: a pipeline refused (pipelineRunOptions throws) is a rejection, never an error thrown at the call
  const given = PIPELINE_OWN.find((key) => options[key] !== undefined);
  if (given !== undefined) {
    const message =
      `run: runPipeline takes ${given} from the pipeline (definePipeline's stages and columns), ` +
      'not from its options';
    throw LoadError.of('LOAD_INVALID_OPTION', message);
  }
  const own = pipelineRunOptions(pipeline);
  const taps = [...own.taps, ...(options.taps ?? [])];
  const formats = options.formats ?? pipeline.formats ?? ['parquet'];
  return runSnapshot({ ...options, ...own, formats, taps });
}
