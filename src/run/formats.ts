/** The data file formats img-etl writes. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** One data file format. */
export type Format = (typeof FORMATS)[number];

/** The files of a snapshot folder besides the data: the report page, its numbers, and the loaders. */
export type ReportFile = 'report' | 'reportJson' | 'loadSql' | 'loadPy';

/** The file name each format (and each other file img-etl writes) is written to inside the output folder. */
export const FILE_NAMES: Record<Format | 'rejects' | 'manifest' | ReportFile, string> = {
  parquet: 'images.parquet',
  arrow: 'images.arrow',
  csv: 'images.csv',
  rejects: 'rejects.ndjson',
  manifest: 'manifest.json',
  report: 'report.html',
  reportJson: 'report.json',
  loadSql: 'load.sql',
  loadPy: 'load.py',
};
