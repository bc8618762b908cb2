/**
 * What a sink reports about the file it published.
 */

/**
 * The output formats a sink can write; `report` (report.html, report.json), `loader` (load.sql, load.py) and `index`
 * (images.index: ids and row hashes) too; `sink` is a file of a user's own sink, published with the run.
 */
export type SinkFormat = 'parquet' | 'arrow' | 'csv' | 'rejects' | 'report' | 'loader' | 'index' | 'sink';

/** The file a sink published: where, how many rows, and its exact size and digest. */
export interface SinkResult {
  /** Which format the file holds. */
  format: SinkFormat;
  /** Final path of the file. */
  path: string;
  /** Rows written (records, for rejects). */
  rows: number;
  /** File size in bytes. */
  bytes: number;
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: string;
}
