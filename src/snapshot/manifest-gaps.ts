/**
 * The records a snapshot's table lacks by its manifest: those the completeness proof could not account for (an
 * incomplete snapshot) and those that broke the schema. A diff reads their absence as a removal or an addition.
 */
import { COLLECTIONS } from '../schema/collection-columns.js';
import type { Table } from '../schema/table.js';
import { readManifest } from './read-manifest.js';
import { listedFile } from './verify-snapshot-file.js';

/**
 * What a manifest says a table of its snapshot lacks: the manifest, the records missing (0 when the snapshot is
 * complete; the images only) and those rejected (they broke the schema).
 */
export type ManifestGaps = NonNullable<Awaited<ReturnType<typeof manifestGaps>>>;

/**
 * The gaps of `table` in the snapshot whose data file is `path`, when the manifest beside it lists the file and gives
 * some; undefined otherwise (no manifest, or nothing lacking).
 */
export async function manifestGaps(path: string, table: Table) {
  const listed = await listedFile(path);
  if (listed === undefined) return undefined;
  const facts = (await readManifest(listed.manifest)) as Record<string, unknown> | undefined;
  const images = table.name !== COLLECTIONS.name;
  const section = (images ? facts : facts?.['collections']) as Record<string, unknown> | undefined;
  const count = (key: string): number => (typeof section?.[key] === 'number' ? section[key] : 0);
  const gaps = { manifest: listed.manifest, missing: images ? count('missing') : 0, rejects: count('rejects') };
  return gaps.missing > 0 || gaps.rejects > 0 ? gaps : undefined;
}
