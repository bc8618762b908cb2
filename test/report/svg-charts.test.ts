/**
 * The charts' text: drawn 380 units wide, every text starts and ends inside the chart by its estimated
 * width, a row label too long for its column goes on two lines (cut only where two cannot hold it) with its whole
 * text in the mark's title, a histogram names its
 * bins' edges, and a line chart labels every point with its value and its label where they fit.
 */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/build-report.js';
import { renderReportHtml } from '../../src/report/render-report-html.js';
import { ReportStats } from '../../src/report/report-stats.js';
import { barChart, CHART_WIDTH, columnChart, lineChart } from '../../src/report/svg-charts.js';

/** Each text of an SVG: its x, anchor and words. */
function texts(svg: string): { x: number; anchor: string; words: string }[] {
  return [...svg.matchAll(/<text[^>]* x="([\d.-]+)"[^>]* text-anchor="(\w+)">([^<]*)<\/text>/g)].map((m) => ({
    x: Number(m[1]),
    anchor: m[2]!,
    words: m[3]!,
  }));
}

describe('chart text', () => {
  it('breaks a long row label after a word onto two lines, cuts what two cannot hold, its title whole', () => {
    const label = 'a multivariate-beta map of a very long name that two lines of its column cannot hold';
    const svg = barChart(
      'b',
      'B',
      [
        { label, value: 12_345 },
        { label: 'x', value: 1 },
      ],
      'maps',
      12_346,
    );
    expect(svg).toContain(`<title>${label}: 12,345 (100.0%)</title>`);
    const lines = [...svg.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]!);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^ \S.*…$/); // broken at a space, which starts the second line (read, the words stay apart)
    expect(label.startsWith(lines.join('').slice(0, -1))).toBe(true);
    const xs = [...svg.matchAll(/<t(?:ext|span)[^>]* x="([\d.-]+)"/g)].map((m) => Number(m[1]));
    for (const x of xs) expect(x).toBeGreaterThanOrEqual(0);
    for (const x of xs) expect(x).toBeLessThanOrEqual(CHART_WIDTH);
  });

  it("names a histogram's edges, the first at the plot's left, leaving out those that would touch", () => {
    const points = Array.from({ length: 10 }, (_, i) => ({ label: `${2 ** i}–${2 ** (i + 1)}`, value: i }));
    const edges = Array.from({ length: 11 }, (_, i) => `${2 ** i} MiB`);
    const words = texts(columnChart('c', 'C', points, 'size', 'records', edges)).map((t) => t.words);
    expect(words).toContain('1 MiB');
    expect(words.filter((w) => w.endsWith('MiB')).length).toBeGreaterThanOrEqual(3);
    expect(words.filter((w) => w.endsWith('MiB')).length).toBeLessThan(11);
  });

  it('labels every point of a line with its value and its label, on more lines when they would touch', () => {
    const points = ['20261123T031700.000Z', '20261124T031700.000Z', '20261125T031700.000Z'].map((label, i) => ({
      label,
      value: 20_000 + i * 350,
    }));
    const svg = lineChart('h', 'H', points, 'snapshot', 'records');
    const words = texts(svg).map((t) => t.words);
    for (const p of points) expect(words).toContain(p.label);
    for (const v of ['20,000', '20,350', '20,700'])
      expect(words.filter((w) => w === v).length).toBeGreaterThanOrEqual(1);
    const ys = [...svg.matchAll(/y="([\d.]+)" text-anchor="start">2026/g)].map((m) => Number(m[1]));
    expect(new Set(ys).size).toBeGreaterThan(1);
  });
});

/**
 * The characters `draw` reads through strings' iterator (for…of and spread: how the charts measure text, a code point
 * at a time). Past `budget` it stops the drawing with an error, so that work that grows with the square of the text
 * fails at once instead of running for minutes.
 */
function charactersRead(draw: () => void, budget: number): number {
  const iterate = String.prototype[Symbol.iterator];
  let read = 0;
  String.prototype[Symbol.iterator] = function* (this: string): Generator<string, undefined> {
    for (const c of iterate.call(this)) {
      if (++read > budget) throw new Error(`the drawing read more than ${budget} characters`);
      yield c;
    }
    return undefined;
  };
  try {
    draw();
  } finally {
    String.prototype[Symbol.iterator] = iterate;
  }
  return read;
}

/** The report page of one record whose map_type, key in extra and collection's owner are `value`. */
function pageOf(value: string): string {
  const gathered = new ReportStats().gathered();
  gathered.records = 1;
  gathered.categories.get('map_type')!.set(value, 1);
  gathered.extraKeys.set(value, 1);
  gathered.collections.set(7, 1);
  return renderReportHtml(buildReport(gathered, { source: 'run', owners: new Map([[7, value]]) }), 'long');
}

describe('the work of drawing a long value', () => {
  it("measures a 300,000-character value no more than a 30,000-character one's ten times over", () => {
    const [short, long] = ['é'.repeat(29_999) + 'z', 'é'.repeat(299_999) + 'z'];
    const budget = 3_000_000; // ten characters read for each of the longer value's
    const readShort = charactersRead(() => pageOf(short), budget);
    const readLong = charactersRead(() => pageOf(long), budget);
    expect(readShort).toBeGreaterThan(0); // measuring reads through the iterator: the count is in effect
    expect(readLong).toBeLessThanOrEqual(10 * readShort);
    const page = pageOf(long);
    expect(page).toContain(`<title>${long}: 1 (100.0%)</title>`); // drawn whole in the marks' titles
    expect(page).toMatch(/>é+<\/tspan><tspan [^>]*>é+…<\/tspan><\/text>/); // and cut to the label column's two lines
  });
});
