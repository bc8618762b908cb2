/**
 * The files behind an image's other links (thumbnail, surfaces, reduced representation) as the bundled service
 * serves them: a few kilobytes of bytes that follow from the id, the link kind and the offset, so any range is
 * computed on the fly and the same link always gives the same bytes.
 */
import { hash32 } from '../basics/random.js';
import type { ServedFile } from './served-file.js';

const CHUNK = 64 * 1024;
const TYPES: Record<string, string> = { '.jpg': 'image/jpeg', '.png': 'image/png' };

/** The served file of link `kind` (`thumbnail`, `surface_left_file`, …) of image `id`, named `name`. */
export function extraFile(id: number, kind: string, name: string): ServedFile {
  const salt = hash32(id, ...Array.from(kind, (c) => c.charCodeAt(0)));
  const size = 1_000 + (salt % 9_000);
  const type = Object.entries(TYPES).find(([ext]) => name.endsWith(ext))?.[1] ?? 'application/octet-stream';
  function* read(start: number, end: number): Generator<Buffer> {
    for (let p = start; p < Math.min(end, size); p += CHUNK) {
      const chunk = Buffer.alloc(Math.min(CHUNK, Math.min(end, size) - p));
      for (let i = 0; i < chunk.length; i++) chunk[i] = hash32(salt, p + i) & 0xff;
      yield chunk;
    }
  }
  return { size, contentType: type, read };
}
