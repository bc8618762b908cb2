/**
 * The checksum of a staged page, recorded in its journal line and checked whenever the page is read back, so that a
 * page changed on disk is never taken for the one served. sha256 costs a small part of parsing the page it guards
 * (docs/performance.md, "Staged pages' checksums").
 */
import { createHash } from 'node:crypto';

/** The checksum of a staged page's bytes, `sha256:<hex>`. */
export function pageChecksum(body: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/** Why the bytes read back are not the page staged with `checksum`, or undefined. */
export function checksumProblem(body: Uint8Array, checksum: string): string | undefined {
  if (pageChecksum(body) !== checksum) return "changed on disk since it was staged (its sha256 is not the journal's)";
  return undefined;
}
