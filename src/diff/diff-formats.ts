/** The formats a diff is written in and their file names, apart from the writers: the CLI loads those only to write. */
import { IMAGES } from '../schema/columns.js';

/** The formats a diff can be written in. */
export const DIFF_FORMATS = ['parquet', 'csv'] as const;

/** One diff file format. */
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** The file name each diff format of the images is written to in the output folder (the collections': COLLECTIONS). */
export const DIFF_FILE_NAMES: Record<DiffFormat, string> = { ...IMAGES.diffFiles };
