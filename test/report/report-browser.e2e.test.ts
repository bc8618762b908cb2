/**
 * The report page in a real browser: headless Chromium from Debian's package (installed by the test
 * set-up) opens report.html from disk; nothing leaves the file, nothing errs, every chart is an SVG holding the points
 * of its numbers in report-data, and a screenshot goes to test-output/report.png for people to look at.
 * The pages of a one-pass run and of a run that read collections to reconcile, measured at 390 px and
 * 1280 px wide: no JSON in the text, the run's labels as wide as their words, no text under 11 px, none cut or covered
 * (the measures go to test-output/report-layout.json).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AtlasStates, ReportData } from '../../src/report/report-data.js';
import { visitPage, type PageVisit } from '../helpers/headless-chromium.js';
import { LAYOUT, WIDTHS, type Layout } from '../helpers/report-layout.js';
import { makeReportSnapshots, type ReportSnapshots } from '../helpers/report-snapshots.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { missingTools } from '../helpers/test-tools.js';

/** Where the screenshot goes (git-ignored). */
const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url));

let dir: string;
let snaps: ReportSnapshots;
let unavailable: string | undefined;
let visit: PageVisit;
let onePass: PageVisit;
let data: ReportData;
let manifests: { collections: { records_written: number } }[];

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
  unavailable = missingTools(['chromium']);
  dir = await tempDir();
  // The second run's scans start at a random row: its pass comes up short and collections are read to reconcile.
  const faults = { unstableOrderRate: 1, unstableOrderMode: 'rotate' as const, faultSeed: 4 };
  snaps = await makeReportSnapshots(join(dir, 'snaps'), 1500, { faults });
  if (unavailable !== undefined) return;
  const read = async <T>(folder: string, name: string) => JSON.parse(await readFile(join(folder, name), 'utf8')) as T;
  data = await read<ReportData>(snaps.folders[1]!, 'report.json');
  manifests = await Promise.all(snaps.folders.map((f) => read<(typeof manifests)[number]>(f, 'manifest.json')));
  await mkdir(OUTPUT, { recursive: true });
  const measure = { expression: LAYOUT, widths: WIDTHS };
  const page = (i: number) => join(snaps.folders[i]!, 'report.html');
  visit = await visitPage(page(1), EXPRESSION, (png) => writeFile(join(OUTPUT, 'report.png'), png), measure);
  onePass = await visitPage(page(0), EXPRESSION, (png) => writeFile(join(OUTPUT, 'report-one-pass.png'), png), measure);
  const measured = { reconciled: visit.measured, one_pass: onePass.measured };
  await writeFile(join(OUTPUT, 'report-layout.json'), JSON.stringify(measured, null, 2));
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
      label: `${c.collection_id} · ${c.name}`, // its id and its name in the collections table
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

describe('report.html at 390 px and 1280 px wide', () => {
  const layouts = () => [
    { name: 'reconciled', layouts: visit.measured as Record<number, Layout> },
    { name: 'one pass', layouts: onePass.measured as Record<number, Layout> },
  ];

  it('reads in words: no JSON in the text, the proof in a table, "1 pass", each count naming what it counts', (ctx) => {
    if (unavailable !== undefined) ctx.skip();
    const [reconciled, single] = layouts().map((l) => l.layouts[390]!.run);
    for (const run of [reconciled, single]) {
      expect(run).not.toMatch(/\b1 passes\b|\b1 pages\b|\b1 records\b/);
      expect(run).toMatch(/in \d+ pages and 1 pass over the list/);
    }
    expect(single).toMatch(/image list\s+one pass, complete by count: [\d,]+ of [\d,]+ records/);
    expect(reconciled).toMatch(/image list\s+one pass gave [\d,]+ of [\d,]+ records/);
    expect(reconciled).toMatch(/collections read\s+\d+ collections? read in id order \(.*\), adding [\d,]+ records?/);
    const proof = (data.run!.completeness_proof as { reconciliation: { added: number } }).reconciliation;
    expect(proof.added).toBeGreaterThan(0);
    expect(reconciled).toContain(`adding ${proof.added.toLocaleString('en-US')} record`);
    const listed = manifests[1]!.collections.records_written;
    expect(reconciled).toContain(
      `${data.collections.count.toLocaleString('en-US')}\ncollections with maps, ${listed} listed`,
    );
    for (const { layouts: byWidth } of layouts()) for (const w of WIDTHS) expect(byWidth[w]!.json).toEqual([]);
  });

  it("keeps the run table's labels as wide as their words, over the values at 390 px, beside them at 1280", (ctx) => {
    if (unavailable !== undefined) ctx.skip();
    for (const { name, layouts: byWidth } of layouts()) {
      for (const w of WIDTHS) {
        const labels = byWidth[w]!.labels;
        expect(labels.length, name).toBeGreaterThanOrEqual(2);
        for (const l of labels) {
          expect({ name, w, label: l.text, lines: l.lines }).toEqual({ name, w, label: l.text, lines: 1 });
          expect(l.width).toBeGreaterThanOrEqual(l.textWidth);
          expect(l.stacked).toBe(w === 390);
        }
      }
    }
  });

  it('has no text under 11 px, none outside its box or chart, none covering another, no sideways scroll', (ctx) => {
    if (unavailable !== undefined) ctx.skip();
    for (const { name, layouts: byWidth } of layouts()) {
      for (const w of WIDTHS) {
        const l = byWidth[w]!;
        expect({ name, w, smallest: l.smallest.px >= 11 ? 'ok' : l.smallest }).toEqual({ name, w, smallest: 'ok' });
        expect({ name, w, overflowing: l.overflowing }).toEqual({ name, w, overflowing: [] });
        expect({ name, w, cut: l.cut }).toEqual({ name, w, cut: [] });
        expect({ name, w, covered: l.covered }).toEqual({ name, w, covered: [] });
        expect(l.scrollWidth).toBeLessThanOrEqual(w);
        expect(l.texts).toBeGreaterThan(200);
      }
    }
  });

  it('labels every point of "Records per snapshot" with its value and its snapshot', (ctx) => {
    if (unavailable !== undefined) ctx.skip();
    for (const w of WIDTHS) {
      const history = (visit.measured as Record<number, Layout>)[w]!.history;
      expect(history.map((p) => p.label)).toEqual(data.history.map((h) => h.snapshot));
      for (const p of history) expect(p).toMatchObject({ labelled: true, valued: true });
    }
  });
});
