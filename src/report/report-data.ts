/**
 * The numbers behind every chart of a snapshot's report, as one JSON document: embedded in report.html
 * (`<script type="application/json" id="report-data">`) and written beside it as report.json, so that a script or a
 * CI check reads exactly what the page shows. Field names are snake_case, as in the manifest.
 */

/** Version of the report document; bump when a field changes meaning or is removed. */
export const REPORT_VERSION = 2; // 2: `counts` lists the 20 most common values, `counts_other` the rest

/** A value and how many records hold it; `value` null counts the records where the column is null. */
export interface ValueCount {
  value: string | null;
  count: number;
}

/** The values of a column beyond those listed: how many distinct values they are, and the records holding them. */
export interface OtherValues {
  values: number;
  count: number;
}

/** How many records hold true, false and null in a boolean column. */
export interface FlagCounts {
  true: number;
  false: number;
  null: number;
}

/** One bin of a histogram: values from `from` (inclusive) to `to` (exclusive; inclusive for the last linear bin). */
export interface Bin {
  from: number;
  to: number;
  count: number;
}

/** A numeric column's distribution: the values held, their range, and a histogram of them. */
export interface Distribution {
  /** Records holding a value. */
  count: number;
  /** Records where the column is null. */
  nulls: number;
  min: number | null;
  max: number | null;
  /**
   * `log2`: a bin for [0, 1), then [1, 2), [2, 4), …, from the first bin holding a value to the last; `linear`: ten
   * bins of 10 from 0 to 100 (the last includes 100).
   */
  scale: 'log2' | 'linear';
  bins: Bin[];
  /** Values below the first bin (negative) and above the last (over 100 on a linear scale). */
  below: number;
  above: number;
}

/** How a Cognitive Atlas field was answered: a named task or contrast, "None / Other", or nothing. */
export interface AtlasStates {
  named: number;
  other: number;
  blank: number;
}

/** How a column is filled: values, nulls as served (or absent), empty strings and sentinels turned into null. */
export interface ColumnFill {
  column: string;
  value: number;
  null: number;
  empty: number;
  sentinel: number;
}

/** One snapshot of the same output folder, for the count over time. */
export interface HistoryPoint {
  snapshot: string;
  started_at: string;
  records: number;
  complete: boolean;
}

/** What the run that made the snapshot did, from its manifest. */
export interface RunFacts {
  source_url: string;
  started_at: string;
  finished_at: string;
  duration_seconds: number;
  complete: boolean;
  expected: number;
  received: number;
  missing: number;
  passes: number;
  pages_fetched: number;
  retries: number;
  rejects: number;
  duplicates_dropped: number;
  /** The manifest's proof of completeness, as it gives it; null when the manifest has none. */
  completeness_proof: unknown;
  /** Requests per endpoint, as the manifest gives them; null when it does not (`pages_fetched` is then known). */
  requests_per_endpoint: Record<string, number> | null;
}

/** What changed since an older snapshot (the diff of the two, by id). */
export interface Drift {
  /** The older snapshot's data file. */
  against: string;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** Changed records per column, most first. */
  fields: { field: string; count: number }[];
}

/** Records per collection, and per owner when the collections table gives owners. */
export interface CollectionFacts {
  /** Distinct collections the records belong to (null collection_id not counted). */
  count: number;
  /** Collections the collections table lists, those without records too; null without the table in the manifest. */
  listed: number | null;
  /** Records without a collection_id. */
  without: number;
  /** Collections by their number of records (log2 bins). */
  sizes: Distribution;
  /** The largest collections, most records first, with their name in the collections table (null without one). */
  largest: { collection_id: number; name: string | null; records: number }[];
  /** The owners holding most records, from the collections table; null without it (see `owners_note`). */
  owners: { owner: string; records: number; share: number }[] | null;
  /** Why owners are missing, when they are. */
  owners_note: string | null;
}

/** The whole report document. */
export interface ReportData {
  report_version: number;
  tool: string;
  /** The data file the numbers were gathered from, or `run` when gathered while the run wrote it. */
  source: string;
  /** Rows in the images table. */
  records: number;
  run: RunFacts | null;
  /** Records added per calendar month of `add_date` (UTC), oldest first; months with none are listed with 0. */
  added_per_month: { month: string; count: number }[];
  /** Records without an add_date. */
  add_date_nulls: number;
  /** Valid, thresholded and not-MNI maps. */
  flags: Record<string, FlagCounts>;
  /** Records per value of each charted category column, most first: its 20 most common values. */
  counts: Record<string, ValueCount[]>;
  /** The values of each charted category column beyond the 20 in `counts` (0 and 0 when there are none). */
  counts_other: Record<string, OtherValues>;
  /** The paradigm and contrast fields in three states. */
  cognitive_atlas: { paradigm: AtlasStates; contrast: AtlasStates };
  distributions: Record<string, Distribution>;
  collections: CollectionFacts;
  /** Every column's fill, in output column order. */
  fill: ColumnFill[];
  /** Keys of `extra` by the number of records holding them, most first; `extra_key_count` distinct keys in all. */
  extra_keys: ValueCount[];
  extra_key_count: number;
  drift: Drift | null;
  /** Why there is no drift when there is an older snapshot (it could not be read, or neither has Parquet or Arrow). */
  drift_note: string | null;
  /** Records per snapshot of the same folder, oldest first, this one included; empty outside a snapshot folder. */
  history: HistoryPoint[];
}
