/**
 * Publishing a small JSON document (the run manifest) with the same atomic rename as the data files.
 */
import { AtomicFile } from './atomic-file.js';
import type { Digest } from './file-digest.js';
import { encodeFailed } from './load-error.js';

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
  const file = await AtomicFile.create(path);
  try {
    await file.write(text);
    return await file.commit();
  } catch (error) {
    await file.abort();
    throw error;
  }
}
