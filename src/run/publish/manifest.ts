/** The manifest: what a snapshot holds and how it was made, written beside its data files as `manifest.json`. */
import type { NormalisationCounts } from '../../schema/normalisation-counts.js';
import type { SinkResult } from '../../load/sink-result.js';
import type { RequestCounts } from '../../extract/completeness/collect.js';
import type { Completeness } from '../../extract/completeness/completeness.js';
import type { PipelineIdentity } from '../pipeline-identity.js';

/** What a snapshot holds and how it was made: written beside the data files as `manifest.json`. */
export interface Manifest {
  /** The tool and its version. */
  tool: string;
  /**
   * The node that ran it: its version and the flags it started with (`img-etl` gives those of src/cli/node-flags.ts).
   */
  runtime: { node: string; flags: string[] };
  /** Version of the output schema (see COLUMNS); `<version>+<column>...` when a pipeline added columns. */
  schema_version: string;
  /**
   * The pipeline the run wrote, by name and the sha256 of its file and its local imports (`img-etl` runs
   * pipelines/full-snapshot).
   */
  pipeline?: PipelineIdentity;
  /** The list endpoint that was paged. */
  source_url: string;
  /** When the run started, ISO 8601 UTC. */
  started_at: string;
  /** `full`: the whole image list was read; `incremental`: what changed since `base`, the rest carried over from it. */
  kind: 'full' | 'incremental';
  /** The snapshot folder an incremental run built on; absent for a full run. */
  base?: string;
  /** Why a `--snapshot` run made a full pass (`--full`, no earlier snapshot to build on, …); absent otherwise. */
  full_because?: string;
  /** When the last full pass the snapshot rests on started: its own start, or its base's last full pass. */
  last_full_at: string;
  /** When the run ended, ISO 8601 UTC. */
  finished_at: string;
  /** Whether the completeness proof accounts for every record (`missing` is 0). */
  complete: boolean;
  /**
   * Records expected: `count` of the last image-list page fetched (asked once more after records were left out as
   * gone, never less than the count at the end of the pass less them: see countAfterGone).
   */
  expected: number;
  /** Unique records received (written plus rejected). */
  received: number;
  /**
   * Records the snapshot lacks: the larger of those the own lists of the collections read count and did not serve
   * (`completeness.reconciliation.unserved`) and expected - received, at least 0; the proof's `missing` is the same.
   */
  missing: number;
  /** The completeness proof: each phase's expected and received, the collections reconciled, the unreadable ones. */
  completeness: Completeness;
  /** Requests sent per endpoint, failed attempts included (by this process, when the run resumed). */
  requests: RequestCounts;
  /** Records the service reported (`count`) at the start and at the end of the run. */
  count_at_start: number;
  count_at_end: number;
  /**
   * Each pass over the list: records it added, duplicates it saw, the counts it saw, and whether nothing shifted under
   * it.
   */
  passes: { pass: number; added: number; duplicates: number; count_min: number; count_max: number; clean: boolean }[];
  /** Image-list pages fetched, and the page size the server applied. */
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
  normalisation: ManifestNormalisation;
  /** The collections table: what was written, or why there is none. */
  collections: ManifestCollections;
  /** Every file written, with rows, bytes and sha256. */
  files: ManifestFile[];
}

/** Values normalisation replaced in a table. */
export interface ManifestNormalisation {
  /** Sentinels turned into null, per column. */
  sentinel_to_null: NormalisationCounts['sentinelToNull'];
  /** Empty strings turned into null, per column. */
  empty_to_null: NormalisationCounts['emptyToNull'];
  /** Records that had keys the schema does not know (kept in `extra`). */
  records_with_extra: number;
}

/** The collections table of a snapshot: its rows (files in `files`), or the one-line reason it is absent. */
export type ManifestCollections =
  | {
      /** The collections list paged. */
      source_url: string;
      /** Version of the collections table's schema. */
      schema_version: string;
      /** Rows in its data files. */
      records_written: number;
      /** Records that broke its schema (in collections-rejects.ndjson). */
      rejects: number;
      /** Values its normalisation replaced. */
      normalisation: ManifestNormalisation;
    }
  | {
      /** The collections list asked for. */
      source_url: string;
      /** Why there is no collections table, one line. */
      absent: string;
    };

/** A table's normalisation counts as the manifest gives them. */
export function manifestNormalisation(counts: NormalisationCounts): ManifestNormalisation {
  return {
    sentinel_to_null: counts.sentinelToNull,
    empty_to_null: counts.emptyToNull,
    records_with_extra: counts.recordsWithExtra,
  };
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
