/**
 * The formats a diff can be written in, and their file names (apart from the writers, so the CLI loads them only to
 * write).
 */
export const DIFF_FORMATS = ['parquet', 'csv'] as const;

/** One diff file format. */
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** The file name each diff format is written to inside the output folder. */
export const DIFF_FILE_NAMES: Record<DiffFormat, string> = { parquet: 'diff.parquet', csv: 'diff.csv' };
