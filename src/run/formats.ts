/** The data file formats img-etl writes. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** One data file format. */
export type Format = (typeof FORMATS)[number];

/** The file name each format is written to inside the output folder. */
export const FILE_NAMES: Record<Format | 'rejects' | 'manifest', string> = {
  parquet: 'images.parquet',
  arrow: 'images.arrow',
  csv: 'images.csv',
  rejects: 'rejects.ndjson',
  manifest: 'manifest.json',
};
