/**
 * The validator of a partial download: which version of the file a `.part` holds, kept beside it in
 * `<path>.part.validator` and sent as `If-Range` when the `.part` is continued, so that a file changed on the server
 * since is sent whole (200) instead of a range of the new version spliced onto the old. It is the response's strong
 * `ETag`, else its `Last-Modified` (a weak ETag cannot be an If-Range); a `.part` without one is not continued.
 */
import { rm, writeFile } from 'node:fs/promises';
import type { FileResponse } from '../extract/paging/http-client.js';
import { onPath } from '../load/file-system/file-system-error.js';
import { readRegularFile, RegularFileError } from '../load/file-system/read-regular-file.js';

/** What the file beside a `.part` that holds its validator adds to the `.part`'s name. */
export const VALIDATOR_SUFFIX = '.validator';

/** The file beside a `.part` that holds its validator. */
function validatorPath(part: string): string {
  return `${part}${VALIDATOR_SUFFIX}`;
}

/** The validator a response names its version by (strong ETag, else Last-Modified); undefined when it has none. */
export function validatorOf(response: Pick<FileResponse, 'header'>): string | undefined {
  const etag = response.header('etag')?.trim();
  if (etag !== undefined && /^"[^"]*"$/.test(etag)) return etag;
  const modified = response.header('last-modified')?.trim();
  return modified === undefined || modified === '' ? undefined : modified;
}

/**
 * The validator kept for a `.part`, or undefined when none is (or it is empty, written by a run that was killed, not a
 * header value, or not a regular file of at most 8 KiB).
 */
export async function readPartValidator(part: string): Promise<string | undefined> {
  try {
    const text = (await readRegularFile(validatorPath(part), { maxBytes: 8192 })).toString('latin1');
    return /^[\t\x20-\x7e\x80-\xff]+$/.test(text) ? text : undefined;
  } catch (err) {
    if (err instanceof RegularFileError || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Keeps `validator` for a `.part` (or removes the one kept, when undefined). */
export async function writePartValidator(part: string, validator: string | undefined): Promise<void> {
  if (validator === undefined) await removePartValidator(part);
  else await onPath(validatorPath(part), () => writeFile(validatorPath(part), validator, 'latin1'));
}

/** Removes the validator kept for a `.part`, if any. */
export async function removePartValidator(part: string): Promise<void> {
  await rm(validatorPath(part), { force: true });
}
