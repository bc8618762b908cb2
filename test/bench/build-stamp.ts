/** Notices when the measured build (dist/src) is rebuilt while the bench runs: the results would mix two builds. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST_SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The newest modification time (ms) of any file in dist/src. */
export function buildStamp(): number {
  let newest = 0;
  for (const name of readdirSync(DIST_SRC, { recursive: true, encoding: 'utf8' })) {
    newest = Math.max(newest, statSync(join(DIST_SRC, name)).mtimeMs);
  }
  return newest;
}
