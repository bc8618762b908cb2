/**
 * Sink: the records that broke the schema, as NDJSON (`{"url":…,"issues":[…],"record":{…}}` per line).
 * The file exists only when there is at least one reject; a clean run leaves no file behind.
 */
import type { RowBatch } from '../schema/row.js';
import { AtomicFile } from './atomic-file.js';
import { closeSource } from './close-source.js';
import { encodeFailed } from './load-error.js';
import type { SinkResult } from './sink-result.js';

/** Options of `toRejects`. */
export interface RejectsSinkOptions {
  /** Path of the NDJSON file (conventionally `rejects.ndjson`), written only if there are rejects; required. */
  path: string;
}

/** What `toRejects` did: how many rejects, and the file when there was at least one. */
export interface RejectsResult {
  /** Number of rejected records. */
  count: number;
  /** The published file, or null when there were no rejects (and no file was written). */
  file: SinkResult | null;
}

/** Writes every batch's rejects to `options.path` as NDJSON, atomically, creating the file only for the first reject. */
export async function toRejects(source: AsyncIterable<RowBatch>, options: RejectsSinkOptions): Promise<RejectsResult> {
  let file: AtomicFile | undefined;
  let count = 0;
  try {
    for await (const batch of source) {
      if (batch.rejects.length === 0) continue;
      let text = '';
      for (const reject of batch.rejects) {
        try {
          text += JSON.stringify({ url: reject.url, issues: reject.issues, record: reject.record }) + '\n';
        } catch (cause) {
          throw encodeFailed(`writing a reject of ${reject.url} to ${options.path}`, cause);
        }
      }
      file ??= await AtomicFile.create(options.path);
      await file.write(text);
      count += batch.rejects.length;
    }
    if (file === undefined) return { count: 0, file: null };
    const digest = await file.commit();
    return { count, file: { format: 'rejects', path: options.path, rows: count, ...digest } };
  } catch (error) {
    await file?.abort();
    await closeSource(source);
    throw error;
  }
}
