/**
 * Sink: the records that broke the schema, as NDJSON (`{"url":…,"issues":[…],"record":{…}}` per line), each record
 * as the JSON text it was served as when the reject carries it (a text with line breaks loses the whitespace
 * outside its strings, so that it stays one line). The file exists only when there is at least one reject.
 */
import { singleLineJson } from '../text/raw-json.js';
import type { Reject, RowBatch } from '../schema/row.js';
import { AtomicFile } from './file-system/atomic-file.js';
import { closeSource } from './close-source.js';
import { encodeFailed } from '../text/load-error.js';
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

/**
 * Writes every batch's rejects to `options.path` as NDJSON, atomically, creating the file only for the first reject.
 */
export async function toRejects(source: AsyncIterable<RowBatch>, options: RejectsSinkOptions): Promise<RejectsResult> {
  let file: AtomicFile | undefined;
  let count = 0;
  try {
    for await (const batch of source) {
      if (batch.rejects.length === 0) continue;
      let text = '';
      for (const reject of batch.rejects) {
        try {
          text += rejectLine(reject) + '\n';
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

/** One line of rejects.ndjson: the record's served text where known, else the parsed record re-serialised. */
function rejectLine(reject: Reject): string {
  const { url, issues, record, text } = reject;
  if (text === undefined) return JSON.stringify({ url, issues, record });
  return `{"url":${JSON.stringify(url)},"issues":${JSON.stringify(issues)},"record":${singleLineJson(text)}}`;
}
