/**
 * Publishing a small text file (the manifest, the report, the loaders) with the same atomic rename as the data files.
 */
import { replaceFile } from './atomic-file.js';
import type { Digest } from './file-digest.js';

/** Writes `text` to `path` atomically; returns its size and SHA-256. */
export async function writeTextAtomic(path: string, text: string): Promise<Digest> {
  return (await replaceFile(path, (file) => file.write(text)))[1];
}
