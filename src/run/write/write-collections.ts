/**
 * The collections table of a snapshot, from a source of collection records as served (replayCollections, the
 * collections list the run staged): checked, normalised and written like the images, to
 * `collections.parquet`/`.arrow`/`.csv`, and `collections-rejects.ndjson` for records that break its schema.
 */
import { rejectUrl } from '../../extract/staging/replay-rejects.js';
import { rejectKey } from '../../extract/staging/save-page.js';
import { COLLECTIONS } from '../../schema/collection-columns.js';
import type { PageBatch } from '../../schema/row.js';
import { validate, type ValidBatch } from '../../transform/validate.js';
import { writeTable, type TableOutput } from './write-table.js';
import type { WriteOutputsOptions } from './write-outputs.js';

/**
 * Writes the collections table into `options.outDir` from `source`: batches of records as served, ascending by id,
 * each id once; a record's served text comes from its batch's `body` or is attached to it (record-text.ts).
 */
export function writeCollections(
  source: AsyncIterable<PageBatch>,
  options: Omit<WriteOutputsOptions, 'table'>,
): Promise<TableOutput> {
  return writeTable(withOwnUrls(validate(source, COLLECTIONS)), { ...options, table: COLLECTIONS });
}

/** The batches, each reject under its own URL, as the images' rejects.ndjson gives them. */
async function* withOwnUrls(batches: AsyncIterable<ValidBatch>): AsyncIterable<ValidBatch> {
  for await (const batch of batches) {
    for (const reject of batch.rejects) reject.url = rejectUrl(reject.url, rejectKey(reject.record), 'collections');
    yield batch;
  }
}
