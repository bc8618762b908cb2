import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';

/** The data file formats img-etl writes. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** One data file format. */
export type Format = (typeof FORMATS)[number];

/** The tables a snapshot holds: the images, and the collections where the service lists them. */
export const TABLES: readonly Table[] = [IMAGES, COLLECTIONS];

/** The file name each format of the images is written to inside the output folder, and the manifest's. */
export const FILE_NAMES: Record<Format | 'rejects' | 'manifest', string> = {
  ...IMAGES.files,
  manifest: 'manifest.json',
};
