/**
 * Names the generated loaders give beside a table's columns, which no column added to that table may take: load.sql's
 * images_with_collection view selects every images column and adds `collection_record`, so a column of that name
 * would stand where a reader looks for the struct of the image's collection.
 */

/** The struct column of load.sql's images_with_collection view: each image's row of the collections table. */
export const COLLECTION_RECORD = 'collection_record';

/** By table name, the names its loaders give beside its columns, and why a column cannot take each (lowercase). */
export const LOADER_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  images: {
    [COLLECTION_RECORD]: "load.sql's images_with_collection view gives that name to each image's collection",
  },
};
