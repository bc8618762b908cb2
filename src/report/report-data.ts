/**
 * The numbers behind every chart of a snapshot's report, as one JSON document: embedded in report.html
 * (`<script type="application/json" id="report-data">`) and written beside it as report.json, so that a script or a
 * CI check reads exactly what the page shows. Field names are snake_case, as in the manifest.
 */

import type { buildReport } from './build-report.js';
import type { driftOf } from './drift.js';
import type { Histogram } from './histogram.js';

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

/** How a Cognitive Atlas field was answered: a named task or contrast, "None / Other", or nothing. */
export interface AtlasStates {
  named: number;
  other: number;
  blank: number;
}

/** One snapshot of the same output folder, for the count over time. */
export interface HistoryPoint {
  snapshot: string;
  started_at: string;
  records: number;
  complete: boolean;
}

/**
 * The whole report document, as buildReport makes it (docs/report.md gives each field): the run from the manifest
 * (null without one), the counts, distributions, collections, fill, drift and history.
 */
export type ReportData = ReturnType<typeof buildReport>;

/** What the run that made the snapshot did, from its manifest. */
export type RunFacts = NonNullable<ReportData['run']>;

/**
 * A numeric column's distribution: the values held, their range, and a histogram of them (`log2`: a bin for [0, 1),
 * then [1, 2), [2, 4), …; `linear`: ten bins of 10 from 0 to 100, the last including 100).
 */
export type Distribution = ReturnType<Histogram['result']>;

/** One bin of a histogram: values from `from` (inclusive) to `to` (exclusive; inclusive for the last linear bin). */
export type Bin = Distribution['bins'][number];

/** What changed since an older snapshot (the diff of the two, by id): its counts and changed records per column. */
export type Drift = ReturnType<typeof driftOf>;
