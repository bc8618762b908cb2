/**
 * The last check of a run's files in its pending folder before the commit point: each name listed once, and each
 * sink's file holding the bytes its sink resolved to (a sink may change or overwrite its file after its writer
 * resolved). Either would make the manifest list bytes the folder does not hold, and a later run keep the file as
 * someone's instead of removing it with this run's.
 */
import { join } from 'node:path';
import { checkFileDigest } from '../../load/file-system/file-digest.js';
import { fileSystemError } from '../../load/file-system/file-system-error.js';
import { LoadError } from '../../text/load-error.js';

/** A file the manifest will list, as far as this check reads it. */
export interface RunFile {
  name: string;
  format: string;
  bytes: number;
  sha256: string;
}

/** Refuses, in one line, a name listed twice, then a sink's file that does not hold what its sink resolved to. */
export async function checkRunFiles(pending: string, files: readonly RunFile[]): Promise<void> {
  const seen = new Set<string>();
  for (const { name } of files) {
    if (seen.has(name))
      throw LoadError.of(
        'LOAD_INVALID_OPTION',
        `load: ${join(pending, name)} is resolved to twice (by two sinks, or twice by one): each file of a run is ` +
          'published once (give each sink its own file)',
      );
    seen.add(name);
  }
  for (const file of files) if (file.format === 'sink') await checkDigest(join(pending, file.name), file);
}

async function checkDigest(path: string, file: RunFile): Promise<void> {
  const { found, holds } = await checkFileDigest(path, file).catch((cause: unknown) => {
    throw fileSystemError({ stage: 'load', action: "read a sink's file", path, cause });
  });
  if (holds) return;
  const short = (sha256: string) => `${sha256.slice(0, 8)}…`;
  throw LoadError.of(
    'LOAD_INVALID_OPTION',
    `load: a sink's file ${path} holds ${found.bytes} bytes of sha256 ${short(found.sha256)}, not the ` +
      `${file.bytes} bytes of sha256 ${short(file.sha256)} the sink resolved to: resolve to the file as it is once ` +
      'written',
  );
}
