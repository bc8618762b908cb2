/**
 * nilearn's NeuroVault folder (`--layout nilearn`): `<out>/neurovault/collection_<id>/` holding the collection's record
 * (`collection_metadata.json`), each image's record (`image_<id>_metadata.json`) and file (`image_<id>.nii.gz`), which
 * `fetch_neurovault_ids` and every nilearn call in offline mode read without network. nilearn takes a collection's
 * folder as whole once it exists, so the collections written in part are told, and `--whole-collections` widens a
 * selection to every image of the collections it touches.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HttpClient } from '../../extract/paging/http-client.js';
import { withRetry, type RetryOptions } from '../../extract/paging/retry.js';
import { writeTextAtomic } from '../../load/file-system/write-text-atomic.js';
import { makeFolders } from '../../load/file-system/make-folder.js';
import { COLLECTIONS } from '../../schema/collection-columns.js';
import { IMAGES } from '../../schema/columns.js';
import type { Row } from '../../schema/row.js';
import { readSnapshotRows } from '../../snapshot/read-snapshot-rows.js';
import { rowsFromBatch } from '../../snapshot/rows-from-batch.js';
import type { SelectedImage } from '../select-images.js';
import { nilearnJson, rowMembers, textMembers, type Members } from './nilearn-record.js';

/** The folder nilearn keeps a collection in, relative to `data_dir`. */
const collectionFolder = (id: number): string => join('neurovault', `collection_${id}`);

/** Where an image's file goes in nilearn's folder under `outDir`, or why it cannot go there. */
export function nilearnPath(outDir: string, image: SelectedImage, url: string): { path: string } | { problem: string } {
  if (image.collectionId === null)
    return { problem: `image ${image.id} has no collection, and nilearn keeps each image in its collection's folder` };
  if (!/\.nii\.gz$/i.test(new URL(url, 'file:///').pathname))
    return { problem: `${url} is not a .nii.gz, the only file nilearn's folder holds (image_<id>.nii.gz)` };
  return { path: join(outDir, collectionFolder(image.collectionId), `image_${image.id}.nii.gz`) };
}

/** What writing the metadata files of a run needs. */
export interface NilearnRun {
  /** The snapshot's images data file (its folder holds the collections table, when the snapshot has one). */
  snapshot: string;
  outDir: string;
  /** The collection of each image whose file is in place. */
  placed: ReadonlyMap<number, number>;
  /** Every collection of a selected image. */
  touched: ReadonlySet<number>;
  client: HttpClient;
  retry: RetryOptions | undefined;
  notice: (message: string) => void;
}

/**
 * The collections of a selection (`selected`: its images of each, files lost on the server aside) that it holds in
 * part: the snapshot has more of their images, files not lost; told in one line, since nilearn takes a collection's
 * folder as whole.
 */
export async function partialCollections(
  snapshot: string,
  selected: ReadonlyMap<number, number>,
  notice: (message: string) => void,
): Promise<number[]> {
  const listed = new Map<number, number>();
  const rows = await readSnapshotRows(snapshot, { columns: ['collection_id', 'file_size'], batchSize: 4096 });
  try {
    for await (const batch of rows.batches) {
      const [collection, size] = [batch.getChild('collection_id'), batch.getChild('file_size')];
      for (let i = 0; i < batch.numRows; i++) {
        const id = Number(collection?.get(i));
        if (selected.has(id) && Number(size?.get(i)) !== 0) listed.set(id, (listed.get(id) ?? 0) + 1);
      }
    }
  } finally {
    await rows.close();
  }
  const partial = [...listed].filter(([id, n]) => selected.get(id)! < n);
  if (partial.length > 0) {
    const some = partial.slice(0, 5).map(([id, n]) => `${id} (${selected.get(id)} of ${n} images)`);
    notice(
      `files: ${partial.length} collection${partial.length === 1 ? '' : 's'} written in part, which nilearn takes ` +
        `as whole: ${some.join(', ')}${partial.length > 5 ? ', …' : ''}; --whole-collections fetches all of each`,
    );
  }
  return partial.map(([id]) => id);
}

/** Writes the record of each image in place and of each collection touched. */
export async function writeNilearnMetadata(run: NilearnRun): Promise<void> {
  const images = await readSnapshotRows(run.snapshot, { batchSize: 1024 });
  try {
    for await (const batch of images.batches) {
      for (const row of rowsFromBatch(batch))
        if (run.placed.has(row['id'] as number)) await writeImageRecord(run.outDir, row);
    }
  } finally {
    await images.close();
  }
  await writeCollectionRecords(run);
}

async function writeImageRecord(outDir: string, row: Row): Promise<void> {
  const [id, folder] = [row['id'] as number, `collection_${String(row['collection_id'])}`];
  const paths = {
    relative_path: `${folder}/image_${id}.nii.gz`,
    resampled_relative_path: `${folder}/image_${id}_resampled.nii.gz`,
  };
  await writeRecord(join(outDir, 'neurovault', folder, `image_${id}_metadata.json`), rowMembers(row, IMAGES), paths);
}

/**
 * Writes the record of each touched collection: from the snapshot's collections table, else fetched from the service
 * (`/api/collections/<id>/`); a collection it cannot have is told in one line, since nilearn does not see its images.
 */
async function writeCollectionRecords(run: NilearnRun): Promise<void> {
  const wanted = new Set(run.touched);
  const write = (id: number, members: Members) =>
    writeRecord(join(run.outDir, collectionFolder(id), 'collection_metadata.json'), members, {
      relative_path: `collection_${id}`,
    });
  const table = await readSnapshotRows(dirname(run.snapshot), { table: COLLECTIONS }).catch(() => undefined);
  try {
    for await (const batch of table?.batches ?? []) {
      for (const row of rowsFromBatch(batch, COLLECTIONS)) {
        if (wanted.delete(row['id'] as number)) await write(row['id'] as number, rowMembers(row, COLLECTIONS));
      }
    }
  } finally {
    await table?.close();
  }
  for (const id of wanted) {
    const url = new URL(`/api/collections/${id}/`, run.client.baseUrl).href;
    const fetched = await withRetry(() => run.client.getJson(url), run.retry).catch((err: Error) => err);
    if (fetched instanceof Error)
      run.notice(
        `files: collection ${id} is not in the snapshot and ${url} failed (${fetched.message}): ` +
          `nilearn will not see its images until ${collectionFolder(id)}/collection_metadata.json is there`,
      );
    else await write(id, textMembers(Buffer.from(fetched.bytes).toString('utf8')));
  }
}

/** Writes a metadata file atomically, unless it holds that text already (a rerun rewrites nothing). */
async function writeRecord(path: string, members: Members, paths: Record<string, string>): Promise<void> {
  const text = nilearnJson(members, paths);
  if ((await readFile(path, 'utf8').catch(() => undefined)) === text) return;
  await makeFolders(dirname(path));
  await writeTextAtomic(path, text);
}
