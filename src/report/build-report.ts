/**
 * Putting a report's document together: the numbers the rows gave (report-stats.ts), the run from its manifest, the
 * collections' owners when the collections table is there, and the drift and history when older snapshots are.
 */
import { COLUMNS } from '../schema/columns.js';
import { TOOL } from '../snapshot/tool.js';
import { Histogram } from './histogram.js';
import { completenessProof, requestsPerEndpoint } from './optional-inputs.js';
import { CHARTED_CATEGORIES, ranked, topValues, type GatheredStats } from './report-stats.js';
import type { Drift } from './drift.js';
import type { HistoryPoint } from './snapshot-history.js';

/** Version of the report document; bump when a field changes meaning or is removed. */
export const REPORT_VERSION = 2; // 2: `counts` lists the 20 most common values, `counts_other` the rest

/** Values of a category column listed, the rest counted as one; collections listed as the largest; owners. */
const TOP_VALUES = 20;
const LARGEST = 20;
const TOP_OWNERS = 10;
/** Extra keys listed. */
const TOP_EXTRA_KEYS = 30;
/** Months beyond this span are listed as found, without the empty months between them. */
const MAX_FILLED_MONTHS = 1200;

/** What besides the rows goes into a report. */
export interface ReportInputs {
  /** Where the numbers were gathered: a data file, or `run`. */
  source: string;
  /** The snapshot's manifest, when there is one. */
  manifest?: Record<string, unknown>;
  /** Owner per collection id, from the collections table. */
  owners?: Map<number, string>;
  /** Name per collection id, from the collections table. */
  names?: Map<number, string>;
  /** Why there are no owners. */
  ownersNote?: string;
  drift?: Drift;
  driftNote?: string;
  history?: HistoryPoint[];
}

/** The report document of the gathered numbers and their inputs. */
export function buildReport(stats: GatheredStats, inputs: ReportInputs) {
  const manifest = inputs.manifest;
  return {
    report_version: REPORT_VERSION,
    tool: TOOL,
    source: inputs.source,
    records: stats.records,
    run: manifest === undefined ? null : runFacts(manifest),
    added_per_month: months(stats.addedPerMonth),
    add_date_nulls: stats.addDateNulls,
    flags: stats.flags,
    ...categoryCounts(stats),
    cognitive_atlas: stats.atlas,
    distributions: Object.fromEntries(Object.entries(stats.distributions).map(([c, h]) => [c, h.result()])),
    collections: collections(stats, inputs),
    fill: fill(stats, manifest),
    extra_keys: ranked(stats.extraKeys).slice(0, TOP_EXTRA_KEYS),
    extra_key_count: stats.extraKeys.size,
    drift: inputs.drift ?? null,
    drift_note: inputs.driftNote ?? null,
    history: inputs.history ?? [],
  };
}

/** The most common values of each charted category column, and the rest as one. */
function categoryCounts(stats: GatheredStats) {
  const tops = CHARTED_CATEGORIES.map((c) => [c, topValues(stats.categories.get(c)!, TOP_VALUES)] as const);
  return {
    counts: Object.fromEntries(tops.map(([c, { top }]) => [c, top])),
    counts_other: Object.fromEntries(tops.map(([c, { other }]) => [c, other])),
  };
}

function runFacts(m: Record<string, unknown>) {
  const num = (key: string) => (typeof m[key] === 'number' ? m[key] : 0);
  const text = (key: string) => (typeof m[key] === 'string' ? m[key] : '');
  const started = Date.parse(text('started_at'));
  const finished = Date.parse(text('finished_at'));
  return {
    source_url: text('source_url'),
    started_at: text('started_at'),
    finished_at: text('finished_at'),
    duration_seconds: Number.isFinite(started) && Number.isFinite(finished) ? (finished - started) / 1000 : 0,
    complete: m['complete'] === true,
    expected: num('expected'),
    received: num('received'),
    missing: num('missing'),
    passes: Array.isArray(m['passes']) ? m['passes'].length : 0,
    pages_fetched: num('pages_fetched'),
    retries: num('retries'),
    rejects: num('rejects'),
    duplicates_dropped: num('duplicates_dropped'),
    completeness_proof: completenessProof(m),
    requests_per_endpoint: requestsPerEndpoint(m),
  };
}

/** Every month from the first to the last with its count (0 where none), or only the months found when far apart. */
function months(counts: Map<string, number>): { month: string; count: number }[] {
  const found = [...counts.keys()].filter((k) => /^-?\d+-\d\d$/.test(k)).sort(byMonth);
  const odd = [...counts.keys()].filter((k) => !/^-?\d+-\d\d$/.test(k)).sort();
  const index = (k: string) => {
    const [, y, m] = /^(-?\d+)-(\d\d)$/.exec(k)!;
    return Number(y) * 12 + Number(m) - 1;
  };
  let list = found;
  if (found.length > 1 && index(found.at(-1)!) - index(found[0]!) < MAX_FILLED_MONTHS) {
    list = [];
    for (let i = index(found[0]!); i <= index(found.at(-1)!); i++) {
      const y = Math.floor(i / 12);
      list.push(`${y}-${String(i - y * 12 + 1).padStart(2, '0')}`);
    }
  }
  return [...list, ...odd].map((month) => ({ month, count: counts.get(month) ?? 0 }));
}

function byMonth(a: string, b: string): number {
  const [ya, ma] = a.split(/-(?=\d\d$)/).map(Number);
  const [yb, mb] = b.split(/-(?=\d\d$)/).map(Number);
  return ya! - yb! || ma! - mb!;
}

function collections(stats: GatheredStats, inputs: ReportInputs) {
  const sizes = new Histogram('log2');
  for (const n of stats.collections.values()) sizes.add(n);
  const largest = ranked(stats.collections)
    .slice(0, LARGEST)
    .map((c) => ({ collection_id: c.value, name: inputs.names?.get(c.value) ?? null, records: c.count }));
  const owners = inputs.owners === undefined ? null : largestOwners(stats, inputs.owners);
  const note = owners === null ? (inputs.ownersNote ?? 'owners need the collections table') : null;
  const [count, without] = [stats.collections.size, stats.withoutCollection];
  const listed = listedCollections(inputs.manifest);
  return { count, listed, without, sizes: sizes.result(), largest, owners, owners_note: note };
}

/** The owners holding most records, with their share of all records. */
function largestOwners(stats: GatheredStats, ownerOf: Map<number, string>) {
  const perOwner = new Map<string, number>();
  for (const [id, n] of stats.collections) {
    const owner = ownerOf.get(id) ?? '(not in the collections table)';
    perOwner.set(owner, (perOwner.get(owner) ?? 0) + n);
  }
  return ranked(perOwner)
    .slice(0, TOP_OWNERS)
    .map((o) => ({ owner: o.value, records: o.count, share: stats.records === 0 ? 0 : o.count / stats.records }));
}

/** Rows of the collections table, as the manifest gives them; null when it has no table. */
function listedCollections(manifest: Record<string, unknown> | undefined): number | null {
  const table = manifest?.['collections'] as { records_written?: unknown } | undefined;
  return typeof table?.records_written === 'number' ? table.records_written : null;
}

function fill(stats: GatheredStats, manifest: Record<string, unknown> | undefined) {
  const normalisation = (manifest?.['normalisation'] ?? {}) as Record<string, Record<string, number> | undefined>;
  const empty = normalisation['empty_to_null'] ?? {};
  const sentinel = normalisation['sentinel_to_null'] ?? {};
  return COLUMNS.map((c, k) => {
    const nulls = stats.nulls[k]!;
    const e = Math.min(empty[c.name] ?? 0, nulls);
    const s = Math.min(sentinel[c.name] ?? 0, nulls - e);
    return { column: c.name, value: stats.records - nulls, null: nulls - e - s, empty: e, sentinel: s };
  });
}
