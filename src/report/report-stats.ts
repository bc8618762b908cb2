/**
 * Gathering a report's numbers from rows as they stream past: counts per value, per month, per collection, histograms
 * and nulls per column. Memory holds one counter per distinct value of the counted columns, collection and extra key,
 * never the rows.
 */
import { COLUMNS } from '../schema/columns.js';
import { readRow } from '../schema/read-row.js';
import type { Row, RowBatch, RowValue } from '../schema/row.js';
import { Histogram } from './histogram.js';

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
export type FlagCounts = GatheredStats['flags'][string];

/** How a Cognitive Atlas field was answered: a named task or contrast, "None / Other", or nothing. */
export type AtlasStates = GatheredStats['atlas']['paradigm'];

/** The category columns charted as counts per value. */
export const CHARTED_CATEGORIES = [
  'map_type',
  'analysis_level',
  'modality',
  'image_type',
  'target_template_image',
  'subject_species',
] as const;

/** The boolean columns charted as shares: valid, thresholded and not-MNI maps. */
export const CHARTED_FLAGS = ['is_valid', 'is_thresholded', 'not_mni'] as const;

/** The numeric columns charted as distributions, and their scale. */
export const CHARTED_DISTRIBUTIONS = {
  number_of_subjects: 'log2',
  brain_coverage: 'linear',
  perc_bad_voxels: 'linear',
  file_size: 'log2',
} as const;

const CATEGORY_COLUMNS = COLUMNS.filter((c) => c.type.kind === 'category').map((c) => c.name);
const DISTRIBUTION_COLUMNS = Object.keys(CHARTED_DISTRIBUTIONS);
/** Each column's position in COLUMNS, where readRow puts its value. */
const AT: Record<string, number> = Object.fromEntries(COLUMNS.map((c, k) => [c.name, k]));
const NAMES = COLUMNS.map((c) => c.name);
const CATEGORY_AT = CATEGORY_COLUMNS.map((c) => AT[c]!);
const DISTRIBUTION_AT = DISTRIBUTION_COLUMNS.map((c) => AT[c]!);
const MICROS_PER_MS = 1000n;

/** What the rows say, before the run's manifest, drift and owners are added (see build-report.ts). */
export type GatheredStats = ReturnType<typeof noStats>;

/** The numbers of no rows yet. */
function noStats() {
  const atlasStates = () => ({ named: 0, other: 0, blank: 0 });
  return {
    records: 0,
    addedPerMonth: new Map<string, number>(),
    addDateNulls: 0,
    flags: Object.fromEntries(CHARTED_FLAGS.map((f) => [f, { true: 0, false: 0, null: 0 }])),
    /** Records per value (null included) of every category column. */
    categories: new Map(CATEGORY_COLUMNS.map((c) => [c, new Map<string | null, number>()])),
    atlas: { paradigm: atlasStates(), contrast: atlasStates() },
    distributions: Object.fromEntries(Object.entries(CHARTED_DISTRIBUTIONS).map(([c, s]) => [c, new Histogram(s)])),
    /** Records per collection_id. */
    collections: new Map<number, number>(),
    withoutCollection: 0,
    /** Nulls per column, in COLUMNS order. */
    nulls: new Array<number>(COLUMNS.length).fill(0),
    extraKeys: new Map<string, number>(),
  };
}

/** A streaming accumulator of a report's numbers: feed it every row once. */
export class ReportStats {
  private readonly stats = noStats();
  private readonly categoryCounts = CATEGORY_COLUMNS.map((c) => this.stats.categories.get(c)!);
  private readonly histograms = DISTRIBUTION_COLUMNS.map((c) => this.stats.distributions[c]!);
  private month = { start: 0n, end: 0n, key: '' };
  private readonly values = new Array<RowValue | undefined>(COLUMNS.length);

  /** Adds the rows of a batch. */
  addBatch(batch: RowBatch): void {
    for (const row of batch.rows) this.addRow(row);
  }

  /** Adds one row. */
  addRow(row: Row): void {
    const s = this.stats;
    const v = this.values;
    readRow(row, v, NAMES); // one pass over the row's slots; by name, each value would be a hash lookup
    s.records++;
    for (let k = 0; k < v.length; k++) if (v[k] === null || v[k] === undefined) s.nulls[k]!++;
    const added = v[AT.add_date!];
    if (typeof added === 'bigint') this.countMonth(added);
    else s.addDateNulls++;
    for (const name of CHARTED_FLAGS) {
      const flag = v[AT[name]!];
      s.flags[name]![flag === true ? 'true' : flag === false ? 'false' : 'null']++;
    }
    for (let k = 0; k < CATEGORY_AT.length; k++) {
      increment(this.categoryCounts[k]!, (v[CATEGORY_AT[k]!] as string | null | undefined) ?? null);
    }
    countAtlas(s.atlas.paradigm, v[AT.cognitive_paradigm_is_other!], v[AT.cognitive_paradigm_cogatlas!]);
    countAtlas(s.atlas.contrast, v[AT.cognitive_contrast_is_other!], v[AT.cognitive_contrast_cogatlas!]);
    for (let k = 0; k < DISTRIBUTION_AT.length; k++) {
      this.histograms[k]!.add((v[DISTRIBUTION_AT[k]!] as number | null | undefined) ?? null);
    }
    const collection = v[AT.collection_id!];
    if (typeof collection === 'number') increment(s.collections, collection);
    else s.withoutCollection++;
    const extra = v[AT.extra!];
    if (typeof extra === 'string') {
      for (const key of Object.keys(JSON.parse(extra) as object)) increment(s.extraKeys, key);
    }
  }

  /** Counts an add_date in its month; rows in id order mostly fall in the month of the row before. */
  private countMonth(micros: bigint): void {
    if (micros < this.month.start || micros >= this.month.end) this.month = monthRange(micros);
    increment(this.stats.addedPerMonth, this.month.key);
  }

  /** A stage that passes batches through unchanged, adding their rows: one more consumer of the run's row stream. */
  async *observe(source: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
    for await (const batch of source) {
      this.addBatch(batch);
      yield batch;
    }
  }

  /** The numbers gathered so far. */
  gathered(): GatheredStats {
    return this.stats;
  }
}

function increment<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function countAtlas(states: AtlasStates, isOther: unknown, name: unknown): void {
  if (isOther === true) states.other++;
  else if (name !== null && name !== undefined) states.named++;
  else states.blank++;
}

/** The UTC calendar month `YYYY-MM` of an instant in microseconds since the epoch. */
export function monthOf(micros: bigint): string {
  return monthRange(micros).key;
}

/** The UTC calendar month of an instant in microseconds: its key `YYYY-MM` and its first and next month's instants. */
function monthRange(micros: bigint): { start: bigint; end: bigint; key: string } {
  let ms = micros / MICROS_PER_MS;
  if (ms * MICROS_PER_MS > micros) ms--; // floor, not toward zero, before 1970
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) {
    // Beyond what a Date holds (±8.64e15 ms): one bucket on each side.
    if (micros < 0n) return { start: -(2n ** 63n), end: micros + 1n, key: 'before -271821' };
    return { start: micros, end: 2n ** 63n, key: 'after 275760' };
  }
  const [y, m] = [date.getUTCFullYear(), date.getUTCMonth()];
  const [start, end] = [monthStart(y, m), monthStart(y, m + 1)];
  return { start, end, key: `${y}-${String(m + 1).padStart(2, '0')}` };
}

/** The first instant of month `m` (from 0; 12 is January of the next year) of year `y`, in microseconds. */
function monthStart(y: number, m: number): bigint {
  const date = new Date(0);
  date.setUTCFullYear(y, m, 1); // not Date.UTC, which reads years 0-99 as 1900-1999
  return BigInt(date.getTime()) * MICROS_PER_MS;
}

/** Counts as a list, most first, ties in order of value (null last). */
export function ranked<K extends string | number | null>(counts: Map<K, number>): { value: K; count: number }[] {
  const list = [...counts].map(([value, count]) => ({ value, count }));
  return list.sort((a, b) => b.count - a.count || order(a.value, b.value));
}

function order(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/**
 * The `limit` values held by most records (ordered as `ranked` orders them) and the rest as one: how many distinct
 * values, and the records holding them.
 */
export function topValues(
  counts: Map<string | null, number>,
  limit: number,
): { top: ValueCount[]; other: OtherValues } {
  const all = ranked(counts);
  const rest = all.slice(limit);
  return { top: all.slice(0, limit), other: { values: rest.length, count: rest.reduce((sum, v) => sum + v.count, 0) } };
}
