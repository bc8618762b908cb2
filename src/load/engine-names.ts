/** The names of the writers each format can use: what the CLI offers, and the keys of each sink's table of engines. */

/** The Parquet writers `toParquet` can use; the first is the default. */
export const PARQUET_ENGINES = ['wasm', 'parquetjs'] as const;

/** A Parquet writer's name. */
export type ParquetEngine = (typeof PARQUET_ENGINES)[number];

/** The CSV writers `toCsv` can use (both write the same bytes); the first is the default. */
export const CSV_ENGINES = ['builtin', 'csv-stringify'] as const;

/** A CSV writer's name. */
export type CsvEngine = (typeof CSV_ENGINES)[number];
