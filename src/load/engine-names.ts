/** The names of the writers each format can use: what the CLI offers, and the keys of each sink's table of engines. */
import { LoadError } from '../text/load-error.js';

/** The Parquet writers `toParquet` can use; the first is the default. */
export const PARQUET_ENGINES = ['wasm', 'parquetjs'] as const;

/** A Parquet writer's name. */
export type ParquetEngine = (typeof PARQUET_ENGINES)[number];

/** The CSV writers `toCsv` can use (both write the same bytes); the first is the default. */
export const CSV_ENGINES = ['builtin', 'csv-stringify'] as const;

/** A CSV writer's name. */
export type CsvEngine = (typeof CSV_ENGINES)[number];

/** The engine `name` of a sink's table of engines; a LOAD_INVALID_OPTION error naming the choices when none is. */
export function engineOf<T>(format: string, engines: Record<string, T>, name: string): T {
  if (Object.hasOwn(engines, name)) return engines[name]!;
  const names = `'${Object.keys(engines).join("' or '")}'`;
  throw LoadError.of('LOAD_INVALID_OPTION', `load: ${format} engine must be ${names}, got ${JSON.stringify(name)}`);
}
