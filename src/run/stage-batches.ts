/**
 * A pipeline's row stages applied in order, each one's batches checked as they pass: a user's stage that yields
 * something other than a row batch fails the run in one line naming the stage, not with a TypeError of the runner's.
 */
import { rowsOnly, type RowBatch } from '../schema/row.js';
import type { RowStage } from '../transform/filter-rows.js';
import { LoadError } from '../text/load-error.js';

/** `source` through `stages` in order (none: `source` as it is), each stage's batches checked. */
export function applyStages(source: AsyncIterable<RowBatch>, stages: readonly RowStage[]): AsyncIterable<RowBatch> {
  if (stages.length === 0) return source;
  let batches = rowsOnly(source);
  stages.forEach((stage, i) => (batches = checked(stage(batches), i, stage)));
  return batches;
}

/** The batches of stage `i`, each with `rows` and `rejects` arrays, or a LoadError naming the stage. */
async function* checked(batches: AsyncIterable<RowBatch>, i: number, stage: RowStage): AsyncIterable<RowBatch> {
  for await (const batch of batches) {
    const fault = faultOf(batch);
    if (fault !== undefined) {
      const name = stage.name === '' ? '' : ` (${stage.name})`;
      throw new LoadError({
        code: 'LOAD_INVALID_VALUE',
        message:
          `load: stage ${i + 1}${name} yielded a batch whose ${fault}: a stage yields row batches ` +
          '{ source, rows, rejects }, e.g. { ...batch, rows }',
      });
    }
    yield batch;
  }
}

/** What is wrong with a batch a stage yielded; undefined when nothing is. */
function faultOf(batch: Partial<RowBatch> | null | undefined): string | undefined {
  if (typeof batch !== 'object' || batch === null) return `value is ${batch === null ? 'null' : typeof batch}`;
  if (!Array.isArray(batch.rows)) return 'rows is not an array';
  if (!Array.isArray(batch.rejects)) return 'rejects is not an array';
  return undefined;
}
