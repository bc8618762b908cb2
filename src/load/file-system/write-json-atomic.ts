/**
 * Publishing a small JSON document (the run manifest) with the same atomic rename as the data files.
 */
import type { Digest } from './file-digest.js';
import { encodeFailed } from '../../text/load-error.js';
import { writeTextAtomic } from './write-text-atomic.js';

/**
 * Writes `value` as pretty-printed JSON (two-space indent, final newline) to `path` atomically; returns its size and
 * SHA-256.
 */
export async function writeJsonAtomic(path: string, value: unknown): Promise<Digest> {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) + '\n';
  } catch (cause) {
    throw encodeFailed(`writing json file ${path}`, cause);
  }
  return writeTextAtomic(path, text);
}
