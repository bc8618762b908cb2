/**
 * Publishing a small text file (the manifest, the report, the loaders) with the same atomic rename as the data files.
 */
import { AtomicFile } from './atomic-file.js';
import type { Digest } from './file-digest.js';

/** Writes `text` to `path` atomically; returns its size and SHA-256. */
export async function writeTextAtomic(path: string, text: string): Promise<Digest> {
  const file = await AtomicFile.create(path);
  try {
    await file.write(text);
    return await file.commit();
  } catch (error) {
    await file.abort();
    throw error;
  }
}
