/**
 * The one place that names what the report uses when present but does not require: the collections table written
 * beside the images (absent where the service has no collection endpoints), and the manifest's completeness proof and
 * requests per endpoint (absent from manifests of earlier versions).
 */
import { join } from 'node:path';

/** The collections table's file name in a snapshot folder (Parquet; CSV beside it is not read). */
export const COLLECTIONS_FILE = 'collections.parquet';

/** The collections table's columns the report and the loaders use. */
export const COLLECTION_COLUMNS = {
  /** The collection's id, what `images.collection_id` names. */
  id: 'id',
  /** Who owns it, as shown: the first of these the table has. */
  owner: ['owner_name', 'owner'],
  /** Its name, often the paper's title. */
  name: 'name',
} as const;

/** Where a snapshot folder's collections table would be. */
export function collectionsPath(folder: string): string {
  return join(folder, COLLECTIONS_FILE);
}

/** The manifest's proof that the snapshot is complete, as it gives it; null when it has none. */
export function completenessProof(manifest: Record<string, unknown>): unknown {
  return manifest['completeness'] ?? null;
}

/** The manifest's requests per endpoint (`{"images": 560, "collections": 14, …}`); null when it gives none. */
export function requestsPerEndpoint(manifest: Record<string, unknown>): Record<string, number> | null {
  const value = manifest['requests'];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, n]) => typeof n === 'number');
  return entries.length === 0 ? null : (Object.fromEntries(entries) as Record<string, number>);
}
