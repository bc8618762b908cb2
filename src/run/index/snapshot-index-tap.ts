/** The snapshot index (images.index, snapshot-index.ts) as a tap on a run: written as the images' rows pass. */
import { SnapshotIndexWriter } from './snapshot-index-writer.js';
import type { OpenRunTap, RunTap } from '../run-tap.js';

/** A tap that writes the run's images.index into its pending folder, listed after the images (none if ids fall). */
export function snapshotIndexTap(): RunTap {
  return {
    async open(run): Promise<OpenRunTap> {
      const writer = await SnapshotIndexWriter.create(run.pending, run.table);
      return {
        rows: async (batches) => {
          for await (const _ of writer.observe(batches));
        },
        afterImages: async () => {
          const file = await writer.finish();
          return file === undefined ? [] : [file];
        },
        abort: () => writer.abort(),
      };
    },
  };
}
