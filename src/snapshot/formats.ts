/** The data file formats and tables a snapshot holds, and their file names. */
import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';
import { LoadError } from '../text/load-error.js';

/** The data file formats img-etl writes. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** One data file format. */
export type Format = (typeof FORMATS)[number];

/** The tables a snapshot holds: the images, and the collections where the service lists them. */
export const TABLES: readonly Table[] = [IMAGES, COLLECTIONS];

/**
 * The files of a snapshot folder besides the data: the report page, its numbers, the loaders, the index and the
 * normalisation counts per collection.
 */
export type ReportFile = 'report' | 'reportJson' | 'loadSql' | 'loadPy' | 'index' | 'normalisation';

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
  normalisation: 'normalisation.json',
};

/** What is wrong with `value` as the formats of a run (a non-empty list of FORMATS); undefined when nothing is. */
export function formatsFault(value: unknown): string | undefined {
  const known = (f: unknown): f is Format => FORMATS.includes(f as Format);
  if (Array.isArray(value) && value.length > 0 && value.every(known)) return undefined;
  return `formats must be a non-empty list of ${FORMATS.join(', ')}; got ${JSON.stringify(value) ?? String(value)}`;
}

/**
 * `value` as the formats of a run, else a LoadError in one line saying what it got (a program's or a pipeline file's
 * formats are not checked by a type checker).
 */
export function checkFormats(value: unknown): Format[] {
  const fault = formatsFault(value);
  if (fault !== undefined) throw LoadError.of('LOAD_INVALID_OPTION', `run: ${fault}`);
  return value as Format[];
}
