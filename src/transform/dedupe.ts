/** The dedupe stage: drops rows whose id was already seen, as offset paging over an unordered list repeats records. */
import type { RowBatch } from '../schema/row.js';

/** What deduplication saw. */
export interface DedupeCounts {
  /** Rows dropped because their id was already written. */
  duplicatesDropped: number;
}

/** Drops rows whose `id` was already seen (offset paging over an unordered list repeats records), counting them. */
export async function* dedupe(
  source: AsyncIterable<RowBatch>,
  counts: DedupeCounts = { duplicatesDropped: 0 },
  seen = new Set<number>(),
): AsyncIterable<RowBatch> {
  for await (const batch of source) {
    const rows = batch.rows.filter((row) => {
      const id = row['id'] as number;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    counts.duplicatesDropped += batch.rows.length - rows.length;
    yield { ...batch, rows };
  }
}
