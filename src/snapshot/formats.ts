import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';

/** The data file formats img-etl writes. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** One data file format. */
export type Format = (typeof FORMATS)[number];

/** The tables a snapshot holds: the images, and the collections where the service lists them. */
export const TABLES: readonly Table[] = [IMAGES, COLLECTIONS];

/** The files of a snapshot folder besides the data: the report page, its numbers, the loaders and the index. */
export type ReportFile = 'report' | 'reportJson' | 'loadSql' | 'loadPy' | 'index';

/**
 * The file name each format of the images (and each other file img-etl writes) is written to inside the output folder.
 */
export const FILE_NAMES: Record<Format | 'rejects' | 'manifest' | ReportFile, string> = {
  ...IMAGES.files,
  manifest: 'manifest.json',
  report: 'report.html',
  reportJson: 'report.json',
  loadSql: 'load.sql',
  loadPy: 'load.py',
  index: 'images.index',
};
