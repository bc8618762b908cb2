/**
 * The write's source: the staged records in ascending id order, then the rejects, in fixed-size batches, each a
 * batch of Arrow columns gathered from the pages' staged columns (each page was parsed once, when it was staged).
 */
import type { RecordBatch } from 'apache-arrow';
import type { Checkpoint } from '../extract/checkpoint.js';
import type { RecordIndex } from '../extract/record-index.js';
import { replayRejects } from '../extract/replay-rejects.js';
import type { LoadBatch } from '../load/arrow-batches.js';
import { ArrowGatherer } from '../load/arrow-gather.js';
import { addReplaced } from '../load/page-columns.js';
import { columnsBatch } from '../load/rows-of-batch.js';
import type { NormalisationCounts } from '../schema/normalisation-counts.js';
import type { Table } from '../schema/table.js';
import { ColumnsCache } from './columns-cache.js';

/** How the write reads the staging folder. */
export interface ReplayOptions {
  /** Rows per batch; fixed so that files depend only on the data. Default 1,000. */
  batchSize?: number;
  /** Rows of staged pages' columns kept in memory (whole pages, at least one); default 5,000. */
  cacheRows?: number;
}

/**
 * Yields every valid record once as a row of `table`, ascending by id, then every reject once, each batch at most
 * `batchSize` long; adds to `counts` what normalisation replaced in the rows yielded.
 */
export async function* replayColumns(
  index: RecordIndex,
  checkpoint: Checkpoint,
  table: Table,
  counts: NormalisationCounts,
  options: ReplayOptions = {},
): AsyncIterable<LoadBatch> {
  const batchSize = options.batchSize ?? 1_000;
  const cache = new ColumnsCache(checkpoint, table, options.cacheRows ?? 5_000);
  const gatherer = new ArrowGatherer(table);
  let picks: { batches: RecordBatch[]; rows: number[] } = { batches: [], rows: [] };
  let first = 0;
  for (const [pageIndex, position] of index.inIdOrder()) {
    const { columns, rowOf } = await cache.get(index.pages[pageIndex]!);
    const row = rowOf[position]!;
    picks.batches.push(columns.batch);
    picks.rows.push(row);
    addReplaced(counts, columns, row);
    if (picks.rows.length === batchSize) {
      yield columnsBatch({ url: 'staging', offset: first }, gatherer.gather(picks), [], table);
      first += batchSize;
      picks = { batches: [], rows: [] };
    }
  }
  if (picks.rows.length > 0) yield columnsBatch({ url: 'staging', offset: first }, gatherer.gather(picks), [], table);
  const offset = first + picks.rows.length;
  for await (const rejects of replayRejects(index, checkpoint, batchSize))
    yield columnsBatch({ url: 'staging', offset }, gatherer.gather({ batches: [], rows: [] }), rejects, table);
}
