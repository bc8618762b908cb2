/**
 * Running a pipeline: how the default `img-etl` job (pipelines/full-snapshot), `img-etl run <pipeline>` and a library
 * user's own pipeline all run, through the one runner (runSnapshot) with the pipeline's table, stages and identity.
 */
import type { Pipeline } from './pipeline.js';
import { pipelineRunOptions } from './pipeline-run-options.js';
import { runSnapshot, type SnapshotOptions, type SnapshotResult } from './run-snapshot.js';

/**
 * Runs `pipeline` as `img-etl run` does: complete, in id order, resumable and published atomically into
 * `options.outDir`; `options.formats` overrides the pipeline's own; `options.taps` (e.g. `reportTap()`) come after the
 * pipeline's sinks.
 */
export function runPipeline(pipeline: Pipeline, options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const own = pipelineRunOptions(pipeline);
  const taps = [...own.taps, ...(options.taps ?? [])];
  const formats = options.formats ?? pipeline.formats ?? ['parquet'];
  return runSnapshot({ ...options, ...own, formats, taps });
}
