import type { NormalisationCounts } from '../transform/normalise.js';
import type { SinkResult } from '../load/sink-result.js';

/** What a snapshot holds and how it was made: written beside the data files as `manifest.json`. */
export interface Manifest {
  /** The tool and its version. */
  tool: string;
  /** Version of the output schema (see COLUMNS). */
  schema_version: string;
  /** The list endpoint that was paged. */
  source_url: string;
  /** When the run started, ISO 8601 UTC. */
  started_at: string;
  /** When the run ended, ISO 8601 UTC. */
  finished_at: string;
  /** Whether every record the service counts was received (written or rejected). */
  complete: boolean;
  /** Records expected: `count` of the last page fetched. */
  expected: number;
  /** Unique records received (written plus rejected). */
  received: number;
  /** expected - received, at least 0. */
  missing: number;
  /** Records the service reported (`count`) at the start and at the end of the run. */
  count_at_start: number;
  count_at_end: number;
  /**
   * Each pass over the list: records it added, duplicates it saw, the counts it saw, and whether nothing shifted under
   * it.
   */
  passes: { pass: number; added: number; duplicates: number; count_min: number; count_max: number; clean: boolean }[];
  /** Pages fetched, and the page size the server applied. */
  pages_fetched: number;
  page_size: number;
  /** Failed requests that were retried. */
  retries: number;
  /** Offsets of records the server could not serve even alone (skipped). */
  skipped_offsets: number[];
  /** Rows in the data files. */
  records_written: number;
  /** Records dropped because their id was already written. */
  duplicates_dropped: number;
  /**
   * Records served in copies that differed while the list was paged; the copy newer by `modify_date` is kept (the later
   * one seen, if equal).
   */
  conflicts: { count: number; first_ids: number[] };
  /** Records that broke the schema (in rejects.ndjson). */
  rejects: number;
  /**
   * Values normalisation replaced: sentinels and empty strings turned into null, per column, and records with unknown
   * keys.
   */
  normalisation: {
    sentinel_to_null: NormalisationCounts['sentinelToNull'];
    empty_to_null: NormalisationCounts['emptyToNull'];
    records_with_extra: number;
  };
  /** Every file written, with rows, bytes and sha256. */
  files: ManifestFile[];
}

/** One written file. */
export interface ManifestFile {
  /** File name inside the output folder. */
  name: string;
  /** parquet, arrow, csv or rejects. */
  format: SinkResult['format'];
  /** Rows (records) in the file. */
  rows: number;
  /** Size in bytes. */
  bytes: number;
  /** SHA-256 of the file, hex. */
  sha256: string;
}
