/** Each collection's owner and name for the report, read from a snapshot's collections table. */
import { readSnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { isFile } from '../load/file-system/path-kind.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import { COLLECTION_COLUMNS, COLLECTIONS_FILE, collectionsPath } from './optional-inputs.js';

/**
 * Each collection's owner and name by id, from a snapshot folder's collections table; `note`, why, when there are no
 * owners.
 */
export async function readCollections(folder: string) {
  const path = collectionsPath(folder);
  if (!(await isFile(path))) {
    const why = `owners need the collections table (${COLLECTIONS_FILE}), which this snapshot does not have`;
    return { note: `${why}; collection sizes are counted from images.collection_id` };
  }
  const table = await readSnapshotRows(path, { table: COLLECTIONS });
  try {
    const fields = new Set(table.schema.fields.map((f) => f.name));
    const owner = COLLECTION_COLUMNS.owner.find((name) => fields.has(name));
    if (!fields.has(COLLECTION_COLUMNS.id) || owner === undefined) {
      const wanted = `${COLLECTION_COLUMNS.id} and ${COLLECTION_COLUMNS.owner.join(' or ')}`;
      return { note: `${COLLECTIONS_FILE} has no ${wanted} columns` };
    }
    const [owners, names] = [new Map<number, string>(), new Map<number, string>()];
    for await (const batch of table.batches) {
      const [ids, who, name] = [COLLECTION_COLUMNS.id, owner, COLLECTION_COLUMNS.name].map((c) => batch.getChild(c));
      for (let i = 0; i < batch.numRows; i++) {
        const id = ids!.get(i) as number | bigint | null;
        if (id === null) continue;
        const [by, called] = [who!.get(i), name?.get(i)] as (string | number | bigint | null | undefined)[];
        if (by !== null && by !== undefined) owners.set(Number(id), String(by));
        if (typeof called === 'string') names.set(Number(id), called);
      }
    }
    return { owners, names };
  } finally {
    await table.close();
  }
}
