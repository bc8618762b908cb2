/**
 * Names the generated loaders give beside a table's columns, which no column added to that table may take: load.sql's
 * images_with_collection view selects every images column and adds `collection_record`, so a column of that name
 * would stand where a reader looks for the struct of the image's collection; load.py's images_with_collection() merges
 * the collections' columns beside the images', suffixing a name both have, so a column of that suffixed name would be
 * two columns of one name (pandas refuses the merge).
 */
import { COLLECTIONS } from './collection-columns.js';

/** The struct column of load.sql's images_with_collection view: each image's row of the collections table. */
export const COLLECTION_RECORD = 'collection_record';

/** What load.py's images_with_collection() appends to a collections column's name that the images have too. */
export const JOIN_SUFFIX = '_collection';

/**
 * Why an images table of `names` cannot have the column `name`, a name its loaders give beside its columns:
 * `collection_record` (in any case) or `<a name both tables have>_collection`; undefined when it can.
 */
export function loaderNameClash(table: string, name: string, names: readonly string[]): string | undefined {
  if (table !== 'images') return undefined;
  if (name.toLowerCase() === COLLECTION_RECORD)
    return "load.sql's images_with_collection view gives that name to each image's collection";
  if (!name.endsWith(JOIN_SUFFIX)) return undefined;
  const shared = name.slice(0, -JOIN_SUFFIX.length);
  if (!COLLECTIONS.names.includes(shared) || !names.includes(shared)) return undefined;
  const why = `load.py's images_with_collection() gives that name to the collections' ${JSON.stringify(shared)}`;
  return `${why}, which the images have too`;
}
