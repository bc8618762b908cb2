/**
 * The numbers behind every chart of a snapshot's report, as one JSON document: embedded in report.html
 * (`<script type="application/json" id="report-data">`) and written beside it as report.json, so that a script or a
 * CI check reads exactly what the page shows. Field names are snake_case, as in the manifest.
 */

import type { buildReport } from './build-report.js';
import type { Histogram } from './histogram.js';

// The parts of the document defined where they are built, named here with the rest for its readers.
export { REPORT_VERSION } from './build-report.js';
export type { Drift } from './drift.js';
export type { AtlasStates, FlagCounts, OtherValues, ValueCount } from './report-stats.js';
export type { HistoryPoint } from './snapshot-history.js';

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
