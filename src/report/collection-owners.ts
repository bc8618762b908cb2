import { readSnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { isFile } from '../load/path-kind.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import { COLLECTION_COLUMNS, COLLECTIONS_FILE, collectionsPath } from './optional-inputs.js';

/** Each collection's owner, from a snapshot folder's collections table; no owners and the reason when there is none. */
export async function readCollectionOwners(folder: string): Promise<{ owners?: Map<number, string>; note?: string }> {
  const path = collectionsPath(folder);
  if (!(await isFile(path))) {
    const why = `owners need the collections table (${COLLECTIONS_FILE}), which this snapshot does not have`;
    return { note: `${why}; collection sizes are counted from images.collection_id` };
  }
  const table = await readSnapshotRows(path, { table: COLLECTIONS });
  try {
    const names = new Set(table.schema.fields.map((f) => f.name));
    const owner = COLLECTION_COLUMNS.owner.find((name) => names.has(name));
    if (!names.has(COLLECTION_COLUMNS.id) || owner === undefined) {
      const wanted = `${COLLECTION_COLUMNS.id} and ${COLLECTION_COLUMNS.owner.join(' or ')}`;
      return { note: `${COLLECTIONS_FILE} has no ${wanted} columns` };
    }
    const owners = new Map<number, string>();
    for await (const batch of table.batches) {
      const ids = batch.getChild(COLLECTION_COLUMNS.id)!;
      const who = batch.getChild(owner)!;
      for (let i = 0; i < batch.numRows; i++) {
        const id = ids.get(i) as number | bigint | null;
        const name = who.get(i) as string | number | bigint | null;
        if (id !== null && name !== null && name !== undefined) owners.set(Number(id), String(name));
      }
    }
    return { owners };
  } finally {
    await table.close();
  }
}
