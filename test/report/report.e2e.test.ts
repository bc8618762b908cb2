/**
 * The report of a `--snapshot` run: report.html and report.json in the snapshot folder, the numbers equal
 * to what DuckDB computes from the snapshot's files, the drift equal to DuckDB's join of the two snapshots, and
 * `img-etl report` reading a snapshot back to the same numbers.
 */
import { copyFile, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/report-data.js';
import { expectedDrift, expectedReport } from '../helpers/report-expected.js';
import { makeReportSnapshots, type ReportSnapshots } from '../helpers/report-snapshots.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let dir: string;
let snaps: ReportSnapshots;
let db: DuckDBConnection;
const reports: ReportData[] = [];

const readJson = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;
const DATA_SCRIPT = /<script type="application\/json" id="report-data">([^<]*)<\/script>/;
const embedded = (html: string) => JSON.parse(DATA_SCRIPT.exec(html)![1]!) as ReportData;

/** The `<svg data-chart="…">` of a page, up to its end. */
function chartOf(html: string, id: string): string {
  const at = html.indexOf(`<svg data-chart="${id}"`);
  expect(at, `chart ${id}`).toBeGreaterThanOrEqual(0);
  return html.slice(at, html.indexOf('</svg>', at));
}

/** An element's text as a browser reads it: tags dropped, character references decoded. */
const textOf = (markup: string) =>
  markup.replace(/<[^>]*>/g, '').replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The row labels of a bar or stacked chart (drawn ending at the plot's left), as read. */
const rowLabels = (chart: string) =>
  [...chart.matchAll(/<text[^>]* text-anchor="end">(.*?)<\/text>/g)].map((m) => textOf(m[1]!));

beforeAll(async () => {
  dir = await tempDir();
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 1500);
  for (const folder of snaps.folders) reports.push(await readJson<ReportData>(join(folder, 'report.json')));
  db = await openDuckDB();
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

describe('the report of a --snapshot run', () => {
  it('is in the snapshot folder and its manifest, and the page embeds report.json exactly', async () => {
    for (const folder of snaps.folders) {
      const manifest = await readJson<{ files: { name: string; format: string }[] }>(join(folder, 'manifest.json'));
      const listed = manifest.files.map((f) => `${f.name}:${f.format}`);
      const report = ['report.html:report', 'report.json:report', 'load.sql:loader', 'load.py:loader'];
      expect(listed).toEqual(expect.arrayContaining(report));
      const html = await readFile(join(folder, 'report.html'), 'utf8');
      expect(embedded(html)).toEqual(await readJson(join(folder, 'report.json')));
    }
  });

  it('has the numbers DuckDB computes from images.parquet', async () => {
    const report = reports[1]!;
    const want = await expectedReport(db, join(snaps.folders[1]!, 'images.parquet'));
    expect(want.records).toBe(snaps.served.length);
    expect(report.records).toBe(want.records);
    expect(report.added_per_month.filter((m) => m.count > 0)).toEqual(want.months);
    const months = contiguousMonths(want.months[0]!.month, want.months.at(-1)!.month);
    expect(report.added_per_month.map((m) => m.month)).toEqual(months);
    expect(report.flags).toEqual(want.flags);
    expect(report.counts).toEqual(want.counts);
    expect(report.cognitive_atlas).toEqual(want.atlas);
    for (const [column, d] of Object.entries(report.distributions)) {
      const { nonEmptyBins, ...rest } = want.distributions[column] as { nonEmptyBins: unknown[] };
      const got = { column, ...d, bins: d.bins.filter((b) => b.count > 0) };
      expect(got).toMatchObject({ column, ...rest, bins: nonEmptyBins });
    }
    const { sizes, ...collections } = want.collections;
    expect(report.collections).toMatchObject(collections);
    expect(report.collections.sizes.bins.filter((b) => b.count > 0)).toEqual(sizes.nonEmptyBins);
    expect(report.extra_keys).toEqual(want.extraKeys);
    expect(report.extra_key_count).toBe(want.extraKeyCount);
  });

  it('fills every column: values as DuckDB counts them; empty strings and sentinels as served', async () => {
    const report = reports[1]!;
    const want = await expectedReport(db, join(snaps.folders[1]!, 'images.parquet'));
    for (const f of report.fill) {
      expect({ column: f.column, value: f.value, nulls: f.null + f.empty + f.sentinel }).toEqual({
        column: f.column,
        value: want.values[f.column],
        nulls: want.records - want.values[f.column]!,
      });
    }
    const fill = Object.fromEntries(report.fill.map((f) => [f.column, f]));
    const served = (key: string, value: unknown) => snaps.served.filter((r) => r[key] === value).length;
    expect(fill['cognitive_paradigm_cogatlas']!.sentinel).toBe(served('cognitive_paradigm_cogatlas', 'None / Other'));
    expect(fill['cognitive_paradigm_cogatlas']!.sentinel).toBeGreaterThan(0);
    expect(fill['description']!.empty).toBe(served('description', ''));
    expect(fill['description']!.empty).toBeGreaterThan(0);
    const absent = snaps.served.filter((r) => r['description'] === null || !('description' in r));
    expect(fill['description']!.null).toBe(absent.length);
  });

  it('has the run from the manifest', async () => {
    const manifest = await readJson<Record<string, unknown>>(join(snaps.folders[1]!, 'manifest.json'));
    expect(reports[1]!.run).toMatchObject({
      source_url: manifest['source_url'],
      started_at: manifest['started_at'],
      complete: true,
      expected: snaps.served.length,
      pages_fetched: manifest['pages_fetched'],
      retries: 0,
      rejects: 0,
      completeness_proof: manifest['completeness'],
      requests_per_endpoint: manifest['requests'],
    });
    expect(reports[1]!.collections.owners_note).toBeNull();
    // The collections listed, those without maps too: the rows of collections.parquet.
    const listed = (manifest['collections'] as { records_written: number }).records_written;
    expect(reports[1]!.collections.listed).toBe(listed);
    expect(listed).toBeGreaterThanOrEqual(reports[1]!.collections.count);
  });

  it("has the owners' maps as DuckDB joins images.parquet and collections.parquet", async () => {
    const [images, collections] = ['images.parquet', 'collections.parquet'].map((f) =>
      sqlString(join(snaps.folders[1]!, f)),
    );
    const sql =
      `SELECT c.owner_name AS owner, count(*) AS records FROM ${images!} AS i JOIN ${collections!} AS c ` +
      'ON i.collection_id = c.id GROUP BY 1';
    const want = new Map((await query(db, sql)).map((r) => [String(r['owner']), Number(r['records'])]));
    const owners = reports[1]!.collections.owners!;
    expect(owners.length).toBeGreaterThan(0);
    for (const o of owners) expect([o.owner, o.records]).toEqual([o.owner, want.get(o.owner)]);
    const least = Math.min(...owners.map((o) => o.records)); // the chart holds the owners with most maps
    expect([...want.values()].filter((n) => n > least).length).toBeLessThanOrEqual(owners.length);
  });

  it("draws each column's name whole in the fill chart: one label per row, none cut, none alike", async () => {
    const html = await readFile(join(snaps.folders[1]!, 'report.html'), 'utf8');
    const long = reports[1]!.fill.filter((f) => f.column.length > 20).map((f) => f.column);
    expect(long).toEqual(
      expect.arrayContaining(['cognitive_paradigm_short_description', 'cognitive_contrast_cogatlas']),
    );
    expect(rowLabels(chartOf(html, 'fill'))).toEqual(reports[1]!.fill.map((f) => f.column));
  });

  it('names the largest collections by their id and by their name in the collections table', async () => {
    const [images, collections] = ['images.parquet', 'collections.parquet'].map((f) =>
      sqlString(join(snaps.folders[1]!, f)),
    );
    const sql = `SELECT c.id, c.name FROM ${collections!} AS c WHERE c.id IN (SELECT collection_id FROM ${images!})`;
    const names = new Map((await query(db, sql)).map((r) => [Number(r['id']), r['name'] as string | null]));
    const largest = reports[1]!.collections.largest;
    expect(largest.length).toBeGreaterThan(5);
    expect(largest.map((l) => l.name)).toEqual(largest.map((l) => names.get(l.collection_id) ?? null));
    expect(largest.filter((l) => typeof l.name === 'string' && l.name.length > 30).length).toBeGreaterThan(0);
    const chart = chartOf(await readFile(join(snaps.folders[1]!, 'report.html'), 'utf8'), 'largest-collections');
    const titles = [...chart.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => textOf(m[1]!));
    const named = largest.map((l) => `${l.collection_id} · ${l.name}: `);
    expect(titles.map((t, k) => t.slice(0, named[k]?.length))).toEqual(named);
    const drawn = rowLabels(chart);
    largest.forEach((l, k) => expect(drawn[k]).toMatch(new RegExp(`^${l.collection_id} · \\S`)));
  });

  it('draws "Records per snapshot" from 0: each dot as high above the 0 line as its records say', async () => {
    const html = await readFile(join(snaps.folders[1]!, 'report.html'), 'utf8');
    const chart = chartOf(html, 'history');
    const ticks = new Map(
      [...chart.matchAll(/<line class="grid"[^>]* y1="([\d.]+)"[^>]*\/><text class="tick"[^>]*>([^<]*)<\/text>/g)].map(
        (m) => [textOf(m[2]!), Number(m[1])],
      ),
    );
    expect(ticks.has('0')).toBe(true);
    const dots = [...chart.matchAll(/<circle [^>]*cy="([\d.]+)"[^>]* data-value="(\d+)"/g)].map((m) => ({
      y: Number(m[1]),
      records: Number(m[2]),
    }));
    expect(dots.map((d) => d.records)).toEqual(reports[1]!.history.map((h) => h.records));
    const [top, value] = [...ticks].find(([label]) => label !== '0')!.reverse() as [number, string];
    const scale = (ticks.get('0')! - top) / Number(value.replaceAll(',', ''));
    for (const d of dots) expect(ticks.get('0')! - d.y).toBeCloseTo(d.records * scale, 0);
  });

  it('has the drift since the last snapshot as DuckDB joins the two, and the count over both snapshots', async () => {
    const [older, newer] = snaps.folders.map((f) => join(f, 'images.parquet'));
    const want = await expectedDrift(db, older!, newer!);
    expect(want).toMatchObject({ added: 8, removed: 5 });
    expect(want.changed).toBeGreaterThanOrEqual(6);
    const drift = reports[1]!.drift!;
    const fields = [...want.fields].sort((a, b) => b.count - a.count); // stable: ties in column order
    expect({ ...drift, against: undefined }).toEqual({ ...want, against: undefined, fields });
    expect(drift.fields.map((f) => f.field)).toEqual(expect.arrayContaining(['name', 'map_type']));
    expect(drift.against).toBe(join(snaps.folders[0]!, 'images.arrow')); // read with no decompression when there
    expect(reports[0]!.drift).toBeNull();
    expect(reports[1]!.history.map((h) => h.records)).toEqual([reports[0]!.records, reports[1]!.records]);
    expect(reports[0]!.history).toHaveLength(1);
  });
});

describe('img-etl report', () => {
  it('reads a snapshot back to the numbers the run gathered, with the drift against the older one', async () => {
    const out = join(dir, 'out', 'page.html');
    const run = await runCliHere(['report', snaps.folders[1]!, '--against', snaps.folders[0]!, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const read = await readJson<ReportData>(join(dir, 'out', 'page.json'));
    expect(embedded(await readFile(out, 'utf8'))).toEqual(read);
    const ran = reports[1]!;
    const unplaced = (r: ReportData) => ({ ...r, source: '', drift: { ...r.drift, against: '' } });
    expect(unplaced(read)).toEqual(unplaced(ran));
    expect(read.source).toBe(join(snaps.folders[1]!, 'images.parquet'));
  });

  it('reads a snapshot named by `latest` to the numbers, title and history of the run that wrote it', async () => {
    const out = join(dir, 'out', 'latest.html');
    const latest = join(snaps.base, 'latest');
    const run = await runCliHere(['report', latest, '--against', snaps.folders[0]!, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const read = await readJson<ReportData>(join(dir, 'out', 'latest.json'));
    const ran = reports.at(-1)!;
    const unplaced = (r: ReportData) => ({ ...r, source: '', drift: { ...r.drift, against: '' } });
    expect(read.history).toEqual(ran.history);
    expect(unplaced(read)).toEqual(unplaced(ran));
    const html = await readFile(out, 'utf8');
    expect(html).toContain(`<h1>NeuroVault snapshot ${basename(snaps.folders.at(-1)!)}</h1>`);
  });

  it('counts the snapshots up to the one read, not the newest 60 of its folder, in its history', async () => {
    // The older snapshot, then 60 newer ones (a manifest each): its history is itself alone.
    const base = join(dir, 'many');
    const oldest = join(base, basename(snaps.folders[0]!));
    await cp(snaps.folders[0]!, oldest, { recursive: true });
    const manifest = await readJson<Record<string, unknown>>(join(oldest, 'manifest.json'));
    for (let k = 0; k < 60; k++) {
      const name = `20990101T0000${String(k).padStart(2, '0')}.000Z`;
      await mkdir(join(base, name));
      await writeFile(join(base, name, 'manifest.json'), JSON.stringify({ ...manifest, records_written: k }));
    }
    const out = join(dir, 'out', 'many.html');
    const run = await runCliHere(['report', oldest, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const read = await readJson<ReportData>(join(dir, 'out', 'many.json'));
    expect(read.history.map((h) => h.snapshot)).toEqual([basename(oldest)]);
    expect(read.history[0]!.records).toBe(read.records);
  });

  it("reads a snapshot of CSV only with the columns' types, to DuckDB's numbers from images.csv", async () => {
    const folder = join(dir, 'csv-only', basename(snaps.folders[1]!));
    await mkdir(folder, { recursive: true });
    for (const name of ['images.csv', 'manifest.json', 'collections.parquet'])
      await copyFile(join(snaps.folders[1]!, name), join(folder, name));
    const out = join(dir, 'out', 'csv.html');
    const run = await runCliHere(['report', folder, '--against', snaps.folders[0]!, '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const read = await readJson<ReportData>(join(dir, 'out', 'csv.json'));
    const want = await expectedReport(db, join(folder, 'images.csv'));
    expect(read.records).toBe(want.records);
    expect(read.added_per_month.filter((m) => m.count > 0)).toEqual(want.months);
    expect([read.flags, read.counts, read.cognitive_atlas]).toEqual([want.flags, want.counts, want.atlas]);
    for (const [column, d] of Object.entries(read.distributions)) {
      const { nonEmptyBins, ...rest } = want.distributions[column] as { nonEmptyBins: unknown[] };
      expect({ column, ...d, bins: d.bins.filter((b) => b.count > 0) }).toMatchObject({
        column,
        ...rest,
        bins: nonEmptyBins,
      });
    }
    expect(read.fill.map((f) => [f.column, f.value])).toEqual(Object.entries(want.values));
    expect([read.extra_keys, read.extra_key_count]).toEqual([want.extraKeys, want.extraKeyCount]);
    // The same numbers as the run gathered while it wrote; the drift is a note: it compares Parquet or Arrow.
    const unplaced = (r: ReportData) => ({ ...r, source: '', drift: null, drift_note: null, history: [] });
    expect(unplaced(read)).toEqual(unplaced(reports[1]!));
    expect(read.source).toBe(join(folder, 'images.csv'));
    expect(read.drift_note).toMatch(/^no comparison with .*: .*images\.csv is CSV; the drift compares snapshots/);
  });

  it('refuses a path that holds no snapshot with exit code 2 and one line', async () => {
    const run = await runCliHere(['report', join(dir, 'nowhere')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^img-etl: report: .*nowhere does not exist\n$/);
  });
});

function contiguousMonths(first: string, last: string): string[] {
  const months: string[] = [];
  let [y, m] = first.split('-').map(Number) as [number, number];
  for (;;) {
    const month = `${y}-${String(m).padStart(2, '0')}`;
    months.push(month);
    if (month === last) return months;
    [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
  }
}
