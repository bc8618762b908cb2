/**
 * A pipeline's row stages applied in order, each one watched as its batches pass: a user's stage that fails, is no
 * function of the batches or yields something other than a row batch fails the run in one line naming the stage (its
 * place, and its name when it has one) and the reason, not with its bare message or a TypeError of the runner's.
 */
import { rowsOnly, type Row, type RowBatch } from '../schema/row.js';
import type { RowStage } from '../transform/filter-rows.js';
import { LoadError } from '../text/load-error.js';

/** `source` through `stages` in order (none: `source` as it is), each stage watched. */
export function applyStages(source: AsyncIterable<RowBatch>, stages: readonly RowStage[]): AsyncIterable<RowBatch> {
  if (stages.length === 0) return source;
  const passing = new WeakSet<object>(); // errors from before a stage, which pass it as they are
  let batches = rowsOnly(source);
  stages.forEach((stage, i) => (batches = watched(batches, stage, `stage ${i + 1}`, passing)));
  return batches;
}

/** The batches `stage` makes of `source`, each with `rows` and `rejects` arrays; a LoadError naming it, else. */
async function* watched(
  source: AsyncIterable<RowBatch>,
  stage: RowStage,
  place: string,
  passing: WeakSet<object>,
): AsyncIterable<RowBatch> {
  const where = typeof stage === 'function' && stage.name !== '' ? `${place} (${stage.name})` : place;
  let batches: AsyncIterable<RowBatch> | undefined;
  try {
    batches = typeof stage === 'function' ? stage(marked(source, passing)) : undefined;
  } catch (error) {
    throw failed(where, error, passing);
  }
  if (typeof (batches as Partial<AsyncIterable<RowBatch>> | undefined)?.[Symbol.asyncIterator] !== 'function')
    throw stageError(
      `load: ${where} is not a function of the batches that yields batches (an async generator function)`,
      passing,
    );
  let lastId = -Infinity; // the rows come in ascending id order, each id once: what the files and the index hold
  try {
    for await (const batch of batches!) {
      const fault = faultOf(batch);
      if (fault !== undefined)
        throw stageError(
          `load: ${where} yielded a batch whose ${fault}: a stage yields row batches { source, rows, rejects }, ` +
            'e.g. { ...batch, rows }',
          passing,
        );
      const order = idOrder(batch.rows, lastId);
      if (typeof order === 'string') throw stageError(`load: ${where} yielded a ${order}`, passing);
      lastId = order;
      yield batch;
    }
  } catch (error) {
    throw failed(where, error, passing);
  }
}

/** The error a stage failed with, as it is when it passes the stages (the run's, ours), else naming the stage. */
function failed(where: string, error: unknown, passing: WeakSet<object>): unknown {
  if (typeof error === 'object' && error !== null && passing.has(error)) return error;
  const reason = error instanceof Error ? error.message || error.name : String(error);
  return stageError(`load: ${where} failed: ${reason}`, passing, error);
}

/** `source`, whose errors (the run's, an earlier stage's) are marked to pass the stages after it as they are. */
async function* marked(source: AsyncIterable<RowBatch>, passing: WeakSet<object>): AsyncIterable<RowBatch> {
  try {
    yield* source;
  } catch (error) {
    if (typeof error === 'object' && error !== null) passing.add(error);
    throw error;
  }
}

/** A stage's LoadError, marked to pass the stages after it. */
function stageError(message: string, passing: WeakSet<object>, cause?: unknown): LoadError {
  const code = cause === undefined ? 'LOAD_INVALID_VALUE' : 'LOAD_STAGE_FAILED';
  const error = LoadError.of(code, message, cause);
  passing.add(error);
  return error;
}

/**
 * The last id of `rows` when they keep the id order after `lastId` (ascending, each id once, each an integer), else
 * what breaks it: the snapshot's files, its images.index, `diff` and the next run read the rows so.
 */
function idOrder(rows: readonly Row[], lastId: number): number | string {
  const order =
    ': a stage keeps the rows in ascending id order, each once (it may drop rows, not repeat or reorder them)';
  for (const row of rows) {
    const id = (row as Partial<Row> | null)?.['id'];
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return `row whose id is ${String(id)}${order}`;
    if (id <= lastId) return `row of id ${id} after the row of id ${lastId}${order}`;
    lastId = id;
  }
  return lastId;
}

/** What is wrong with a batch a stage yielded; undefined when nothing is. */
function faultOf(batch: Partial<RowBatch> | null | undefined): string | undefined {
  if (typeof batch !== 'object' || batch === null) return `value is ${batch === null ? 'null' : typeof batch}`;
  if (!Array.isArray(batch.rows)) return 'rows is not an array';
  if (!Array.isArray(batch.rejects)) return 'rejects is not an array';
  return undefined;
}
