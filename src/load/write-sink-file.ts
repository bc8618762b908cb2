/**
 * A sink's file written whole or not at all, the one way every writer replaces its file: the bytes go to a temporary
 * file beside it, renamed over the final name only once `write` has finished (replaceFile); on any failure the final
 * name keeps what it held, and the source is released so that whatever feeds it (a tee, a pager) stops too.
 */
import { replaceFile, type AtomicFile } from './file-system/atomic-file.js';
import { closeSource } from './close-source.js';
import type { SinkFormat, SinkResult } from './sink-result.js';

/** Writes `format`'s file at `path` from `source` with `write`, which returns the rows it wrote; then publishes it. */
export async function writeSinkFile(
  source: AsyncIterable<unknown>,
  format: SinkFormat,
  path: string,
  write: (file: AtomicFile) => Promise<number>,
): Promise<SinkResult> {
  try {
    const [rows, digest] = await replaceFile(path, write);
    return { format, path, rows, ...digest };
  } catch (error) {
    await closeSource(source); // in case the failure came before the write started reading
    throw error;
  }
}
