/**
 * Gathering a report's numbers from rows as they stream past: counts per value, per month, per collection, histograms
 * and nulls per column. Memory holds one counter per distinct value of the counted columns, collection and extra key,
 * never the rows.
 */
import { COLUMNS } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { Histogram } from './histogram.js';
import type { AtlasStates, FlagCounts, ValueCount } from './report-data.js';

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
const NAMES = COLUMNS.map((c) => c.name);
const MICROS_PER_MS = 1000n;

/** What the rows say, before the run's manifest, drift and owners are added (see build-report.ts). */
export interface GatheredStats {
  records: number;
  addedPerMonth: Map<string, number>;
  addDateNulls: number;
  flags: Record<string, FlagCounts>;
  /** Records per value (null included) of every category column. */
  categories: Map<string, Map<string | null, number>>;
  atlas: { paradigm: AtlasStates; contrast: AtlasStates };
  distributions: Record<string, Histogram>;
  /** Records per collection_id. */
  collections: Map<number, number>;
  withoutCollection: number;
  /** Nulls per column, in COLUMNS order. */
  nulls: number[];
  extraKeys: Map<string, number>;
}

/** A streaming accumulator of a report's numbers: feed it every row once. */
export class ReportStats {
  private readonly stats: GatheredStats = {
    records: 0,
    addedPerMonth: new Map(),
    addDateNulls: 0,
    flags: Object.fromEntries(CHARTED_FLAGS.map((f) => [f, { true: 0, false: 0, null: 0 }])),
    categories: new Map(CATEGORY_COLUMNS.map((c) => [c, new Map()])),
    atlas: { paradigm: { named: 0, other: 0, blank: 0 }, contrast: { named: 0, other: 0, blank: 0 } },
    distributions: Object.fromEntries(Object.entries(CHARTED_DISTRIBUTIONS).map(([c, s]) => [c, new Histogram(s)])),
    collections: new Map(),
    withoutCollection: 0,
    nulls: new Array<number>(NAMES.length).fill(0),
    extraKeys: new Map(),
  };

  /** Adds the rows of a batch. */
  addBatch(batch: RowBatch): void {
    for (const row of batch.rows) this.addRow(row);
  }

  /** Adds one row. */
  addRow(row: Row): void {
    const s = this.stats;
    s.records++;
    const nulls = s.nulls;
    for (let k = 0; k < NAMES.length; k++) if (row[NAMES[k]!] === null || row[NAMES[k]!] === undefined) nulls[k]!++;
    const added = row['add_date'];
    if (typeof added === 'bigint') increment(s.addedPerMonth, monthOf(added));
    else s.addDateNulls++;
    for (const name of CHARTED_FLAGS) {
      const v = row[name];
      s.flags[name]![v === true ? 'true' : v === false ? 'false' : 'null']++;
    }
    for (const [name, counts] of s.categories) increment(counts, (row[name] as string | null | undefined) ?? null);
    countAtlas(s.atlas.paradigm, row['cognitive_paradigm_is_other'], row['cognitive_paradigm_cogatlas']);
    countAtlas(s.atlas.contrast, row['cognitive_contrast_is_other'], row['cognitive_contrast_cogatlas']);
    for (const name in s.distributions) s.distributions[name]!.add((row[name] as number | null | undefined) ?? null);
    const collection = row['collection_id'];
    if (typeof collection === 'number') increment(s.collections, collection);
    else s.withoutCollection++;
    const extra = row['extra'];
    if (typeof extra === 'string') for (const key of Object.keys(JSON.parse(extra) as object)) increment(s.extraKeys, key);
  }

  /** A stage that passes batches through unchanged, adding their rows: one more consumer of the run's row stream. */
  observe(source: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
    const stats = this;
    return (async function* () {
      for await (const batch of source) {
        stats.addBatch(batch);
        yield batch;
      }
    })();
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
  let ms = micros / MICROS_PER_MS;
  if (ms * MICROS_PER_MS > micros) ms--; // floor, not toward zero, before 1970
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return micros < 0n ? 'before -271821' : 'after 275760';
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Counts as a list, most first, ties in order of value (null last). */
export function ranked<K extends string | number | null>(counts: Map<K, number>): { value: K; count: number }[] {
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || order(a.value, b.value));
}

function order(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** Counts per value as the report lists them. */
export function valueCounts(counts: Map<string | null, number>): ValueCount[] {
  return ranked(counts);
}
