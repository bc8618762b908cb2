/**
 * A report's numbers as DuckDB computes them from a snapshot's files, independently of img-etl's code: what the
 * report tests compare report.json with.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { COLUMNS } from '../../src/schema/columns.js';
import { query, sqlString } from './readers.js';

const CATEGORIES = ['map_type', 'analysis_level', 'modality', 'image_type', 'target_template_image', 'subject_species'];
const FLAGS = ['is_valid', 'is_thresholded', 'not_mni'];
const DISTRIBUTIONS: Record<string, 'log2' | 'linear'> = {
  number_of_subjects: 'log2',
  brain_coverage: 'linear',
  perc_bad_voxels: 'linear',
  file_size: 'log2',
};

const n = (v: unknown) => (v === null ? null : Number(v));

/** The bin of `v` (SQL): a bin for [0, 1) then doubling ones, or ten bins of 10 from 0 to 100 (100 in the last). */
function binSql(v: string, scale: 'log2' | 'linear'): string {
  return scale === 'log2'
    ? `CASE WHEN ${v} < 1 THEN 0 ELSE CAST(floor(log2(${v})) AS BIGINT) + 1 END`
    : `CASE WHEN ${v} = 100 THEN 9 ELSE CAST(floor(${v} / 10) AS BIGINT) END`;
}

const bounds = (k: number, scale: 'log2' | 'linear') =>
  scale === 'linear' ? { from: k * 10, to: k * 10 + 10 } : { from: k === 0 ? 0 : 2 ** (k - 1), to: 2 ** k };

async function histogram(db: DuckDBConnection, from: string, v: string, scale: 'log2' | 'linear') {
  const outside = scale === 'linear' ? `${v} < 0 OR ${v} > 100` : `${v} < 0`;
  const [s] = await query(
    db,
    `SELECT count(${v}) AS count, count(*) - count(${v}) AS nulls,
    min(${v}) AS min, max(${v}) AS max, count(*) FILTER (WHERE ${v} < 0) AS below,
    count(*) FILTER (WHERE ${v} > 100) AS above FROM ${from}`,
  );
  const bins = await query(
    db,
    `SELECT ${binSql(v, scale)} AS k, count(*) AS count FROM ${from}
    WHERE ${v} IS NOT NULL AND NOT (${outside}) GROUP BY k ORDER BY k`,
  );
  return {
    count: n(s!['count']),
    nulls: n(s!['nulls']),
    min: n(s!['min']),
    max: n(s!['max']),
    below: n(s!['below']),
    above: scale === 'linear' ? n(s!['above']) : 0,
    nonEmptyBins: bins.map((b) => ({ ...bounds(Number(b['k']), scale), count: Number(b['count']) })),
  };
}

/** DuckDB's types of the columns when it reads img-etl's CSV (text for categories and JSON, as load.sql does). */
const CSV_TYPES: Record<string, string> = {
  int64: 'BIGINT',
  float64: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
};

/** DuckDB's reading of an images.csv: the header, every column with its type, only an empty field null. */
function readCsv(path: string): string {
  const columns = COLUMNS.map((c) => `${sqlString(c.name)}: ${sqlString(CSV_TYPES[c.type.kind] ?? 'VARCHAR')}`);
  const options = `header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', nullstr = ''`;
  return `read_csv(${sqlString(path)}, ${options}, columns = {${columns.join(', ')}})`;
}

/**
 * Everything report.json says about the rows of `file` (images.parquet, or images.csv), as DuckDB computes it (bins:
 * the non-empty ones).
 */
export async function expectedReport(db: DuckDBConnection, file: string) {
  await query(db, "SET TimeZone = 'UTC'");
  const f = file.endsWith('.csv') ? readCsv(file) : `read_parquet(${sqlString(file)})`;
  const [{ records }] = (await query(db, `SELECT count(*) AS records FROM ${f}`)) as [{ records: bigint }];
  const months = await query(
    db,
    `SELECT strftime(add_date, '%Y-%m') AS month, count(*) AS count FROM ${f}
    WHERE add_date IS NOT NULL GROUP BY month ORDER BY month`,
  );
  const flags: Record<string, unknown> = {};
  for (const c of FLAGS) {
    const [r] = await query(
      db,
      `SELECT count(*) FILTER (WHERE ${c}) AS t, count(*) FILTER (WHERE NOT ${c}) AS f,
      count(*) FILTER (WHERE ${c} IS NULL) AS z FROM ${f}`,
    );
    flags[c] = { true: n(r!['t']), false: n(r!['f']), null: n(r!['z']) };
  }
  const counts: Record<string, unknown> = {};
  for (const c of CATEGORIES) {
    const rows = await query(
      db,
      `SELECT ${c}::VARCHAR AS value, count(*) AS count FROM ${f}
      GROUP BY 1 ORDER BY count DESC, value ASC NULLS LAST`,
    );
    counts[c] = rows.map((r) => ({ value: r['value'], count: Number(r['count']) }));
  }
  const atlas: Record<string, unknown> = {};
  for (const what of ['paradigm', 'contrast']) {
    const [other, name] = [`cognitive_${what}_is_other`, `cognitive_${what}_cogatlas`];
    const [r] = await query(
      db,
      `SELECT count(*) FILTER (WHERE ${other}) AS other,
      count(*) FILTER (WHERE ${other} IS NOT TRUE AND ${name} IS NOT NULL) AS named,
      count(*) FILTER (WHERE ${other} IS NOT TRUE AND ${name} IS NULL) AS blank FROM ${f}`,
    );
    atlas[what] = { named: n(r!['named']), other: n(r!['other']), blank: n(r!['blank']) };
  }
  const distributions: Record<string, unknown> = {};
  for (const [c, scale] of Object.entries(DISTRIBUTIONS)) distributions[c] = await histogram(db, f, c, scale);
  const perCollection = `(SELECT collection_id, count(*) AS n FROM ${f}
    WHERE collection_id IS NOT NULL GROUP BY collection_id)`;
  const [c] = await query(
    db,
    `SELECT count(DISTINCT collection_id) AS count,
    count(*) - count(collection_id) AS without FROM ${f}`,
  );
  const largest = await query(
    db,
    `SELECT collection_id, n FROM ${perCollection}
    ORDER BY n DESC, collection_id LIMIT 20`,
  );
  const collections = {
    count: n(c!['count']),
    without: n(c!['without']),
    sizes: await histogram(db, perCollection, 'n', 'log2'),
    largest: largest.map((r) => ({ collection_id: Number(r['collection_id']), records: Number(r['n']) })),
  };
  const counted = COLUMNS.map((col) => `count("${col.name}") AS "${col.name}"`).join(', ');
  const [filled] = await query(db, `SELECT ${counted} FROM ${f}`);
  const keys = `(SELECT unnest(json_keys(extra::JSON)) AS k FROM ${f} WHERE extra IS NOT NULL)`;
  const extra = await query(db, `SELECT k, count(*) AS count FROM ${keys} GROUP BY k ORDER BY count DESC, k LIMIT 30`);
  const [keyCount] = await query(db, `SELECT count(DISTINCT k) AS distinct FROM ${keys}`);
  const distinct = keyCount!['distinct'];
  return {
    records: Number(records),
    months: months.map((m) => ({ month: m['month'] as string, count: Number(m['count']) })),
    flags,
    counts,
    atlas,
    distributions,
    collections,
    values: Object.fromEntries(COLUMNS.map((col) => [col.name, Number(filled![col.name])])),
    extraKeys: extra.map((r) => ({ value: r['k'] as string, count: Number(r['count']) })),
    extraKeyCount: Number(distinct),
  };
}

/** Added, removed and changed records between two snapshots' Parquet files, and changed records per column. */
export async function expectedDrift(db: DuckDBConnection, older: string, newer: string) {
  const o = `read_parquet(${sqlString(older)})`;
  const w = `read_parquet(${sqlString(newer)})`;
  const [ends] = await query(
    db,
    `SELECT count(*) FILTER (WHERE o.id IS NULL) AS added,
    count(*) FILTER (WHERE w.id IS NULL) AS removed FROM ${o} AS o FULL JOIN ${w} AS w ON o.id = w.id`,
  );
  const differs = (name: string) => `o."${name}" IS DISTINCT FROM w."${name}"`;
  const perField = COLUMNS.map((col) => `count(*) FILTER (WHERE ${differs(col.name)}) AS "${col.name}"`).join(', ');
  const anyDiffers = COLUMNS.map((col) => differs(col.name)).join(' OR ');
  const [both] = await query(
    db,
    `SELECT count(*) FILTER (WHERE ${anyDiffers}) AS changed,
    count(*) AS matched, ${perField} FROM ${o} AS o JOIN ${w} AS w ON o.id = w.id`,
  );
  const fields = COLUMNS.map((col) => ({ field: col.name, count: Number(both![col.name]) })).filter((x) => x.count > 0);
  const changed = Number(both!['changed']);
  const [added, removed] = [ends!['added'], ends!['removed']].map(Number);
  const unchanged = Number(both!['matched']) - changed;
  return { added, removed, changed, unchanged, fields };
}
