/**
 * The report page in a real browser (issue 16): headless Chromium from Debian's package (installed here where it is
 * missing) opens report.html from disk; nothing leaves the file, nothing errs, every chart is an SVG holding the
 * points of its numbers in report-data, and a screenshot goes to test-output/report.png for people to look at.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AtlasStates, ReportData } from '../../src/report/report-data.js';
import { ensureDebianPackages } from '../helpers/debian-packages.js';
import { visitPage, type PageVisit } from '../helpers/headless-chromium.js';
import { makeReportSnapshots, type ReportSnapshots } from '../helpers/report-snapshots.js';
import { removeDir, tempDir } from '../helpers/readers.js';

/** Where the screenshot goes (git-ignored). */
const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url));

let dir: string;
let snaps: ReportSnapshots;
let unavailable: string | undefined;
let visit: PageVisit;
let data: ReportData;

/** What the page shows: each chart's id, size and points, and the embedded numbers. */
const EXPRESSION = `JSON.stringify({
  charts: [...document.querySelectorAll('svg[data-chart]')].map((svg) => ({
    id: svg.dataset.chart,
    width: svg.getBoundingClientRect().width,
    height: svg.getBoundingClientRect().height,
    points: [...svg.querySelectorAll('.pt')].map((p) => ({ label: p.dataset.label, value: Number(p.dataset.value) })),
    titled: [...svg.querySelectorAll('.pt')].every((p) => p.querySelector('title') !== null),
  })),
  data: JSON.parse(document.getElementById('report-data').textContent),
})`;

beforeAll(async () => {
  unavailable = ensureDebianPackages(['chromium']);
  dir = await tempDir();
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 1500);
  if (unavailable !== undefined) return;
  const file = join(snaps.folders[1]!, 'report.html');
  data = JSON.parse(await readFile(join(snaps.folders[1]!, 'report.json'), 'utf8')) as ReportData;
  await mkdir(OUTPUT, { recursive: true });
  visit = await visitPage(file, EXPRESSION, (png) => writeFile(join(OUTPUT, 'report.png'), png));
}, 900_000);
afterAll(async () => {
  await removeDir(dir);
});

/** A chart's point: its label (or a matcher where the label is not known here) and value. */
type Point = { label: unknown; value: number };

/** The points each chart should hold, from report.json. */
function expectedCharts(d: ReportData): Record<string, Point[]> {
  const points = (list: { value: string | null; count: number }[]) =>
    list.map((v) => ({ label: v.value ?? '(null)', value: v.count }));
  const stacked = (rows: [string, number[]][], legend: string[]) =>
    rows.flatMap(([label, parts]) => parts.map((value, k) => ({ label: `${label} / ${legend[k]}`, value })));
  const atlas = (s: AtlasStates) => [s.named, s.other, s.blank];
  const charts: Record<string, Point[]> = {
    'added-per-month': d.added_per_month.map((m) => ({ label: m.month, value: m.count })),
    flags: stacked(
      Object.entries(d.flags).map(([f, c]) => [f, [c.true, c.false, c.null]]),
      ['true', 'false', 'null'],
    ),
    'cognitive-atlas': stacked(
      [
        ['paradigm (task)', atlas(d.cognitive_atlas.paradigm)],
        ['contrast', atlas(d.cognitive_atlas.contrast)],
      ],
      ['named', 'None / Other', 'blank'],
    ),
    'largest-collections': d.collections.largest.map((c) => ({
      label: `collection ${c.collection_id}`,
      value: c.records,
    })),
    fill: stacked(
      d.fill.map((f) => [f.column, [f.value, f.null, f.empty, f.sentinel]]),
      ['value', 'null', 'empty → null', 'sentinel → null'],
    ),
    'extra-keys': points(d.extra_keys),
    history: d.history.map((h) => ({ label: h.snapshot, value: h.records })),
    owners: (d.collections.owners ?? []).map((o) => ({ label: o.owner, value: o.records })),
    'run-requests': Object.entries(d.run?.requests_per_endpoint ?? {}).map(([label, value]) => ({ label, value })),
  };
  for (const [c, list] of Object.entries(d.counts)) charts[`counts-${c}`] = points(list);
  const bins = (list: { count: number }[]) => list.map((b): Point => ({ label: expect.any(String), value: b.count }));
  for (const [c, dist] of Object.entries(d.distributions)) charts[`distribution-${c}`] = bins(dist.bins);
  charts['collection-sizes'] = bins(d.collections.sizes.bins);
  const drift = d.drift!;
  const kinds = ['added', 'removed', 'changed', 'unchanged'] as const;
  charts['drift'] = kinds.map((label) => ({ label, value: drift[label] }));
  charts['drift-fields'] = drift.fields.map((f) => ({ label: f.field, value: f.count }));
  return charts;
}

describe('report.html in headless Chromium', () => {
  it('loads from disk with no console error and no request leaving the file', (ctx) => {
    if (unavailable !== undefined) {
      console.warn(`report-browser: skipped: ${unavailable}`);
      ctx.skip();
    }
    expect(visit.errors).toEqual([]);
    expect(visit.requests).toEqual([]);
  });

  it('draws every chart as an SVG holding the points of its numbers, each with a title to hover', (ctx) => {
    if (unavailable !== undefined) ctx.skip();
    type Chart = { id: string; width: number; height: number; points: unknown[]; titled: boolean };
    const page = visit.evaluated as { charts: Chart[]; data: ReportData };
    expect(page.data).toEqual(data);
    const want = expectedCharts(data);
    expect(page.charts.map((c) => c.id).sort()).toEqual(Object.keys(want).sort());
    for (const chart of page.charts) {
      expect({ id: chart.id, points: chart.points }).toEqual({ id: chart.id, points: want[chart.id] });
      expect(chart.points.length).toBeGreaterThan(0);
      expect(chart.width).toBeGreaterThan(200);
      expect(chart.height).toBeGreaterThan(40);
      expect(chart.titled).toBe(true);
    }
  });

  it('fits a phone screen, prints, and leaves a screenshot in test-output/report.png', async (ctx) => {
    if (unavailable !== undefined) ctx.skip();
    expect(visit.phoneScrollWidth).toBeLessThanOrEqual(390);
    expect(visit.pdfBytes).toBeGreaterThan(10_000);
    const png = await readFile(join(OUTPUT, 'report.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(50_000);
  });
});
