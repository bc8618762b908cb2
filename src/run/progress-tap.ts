/** The run's progress while it writes, as a tap on the images' row batches. */
import { rowCount, type RowBatch } from '../schema/row.js';
import type { RunEvent } from './run-events.js';
import type { RunTap } from './run-tap.js';

/** A tap that tells `onEvent` the rows and rejects written so far after each batch (`publish-progress`). */
export function progressTap(onEvent: (event: RunEvent) => void): RunTap {
  const rows = async (batches: AsyncIterable<RowBatch>) => {
    const written = { rows: 0, rejects: 0 };
    for await (const batch of batches) {
      written.rows += rowCount(batch);
      written.rejects += batch.rejects.length;
      onEvent({ type: 'publish-progress', ...written });
    }
  };
  return { open: () => Promise.resolve({ rows }) };
}
