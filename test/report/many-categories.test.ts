/**
 * A category column of 20,000 distinct values charts its 20 most common values and one bar for the
 * rest, whose count is the exact sum of theirs; the report's document lists those 20 and the rest's totals.
 */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/build-report.js';
import { renderReportHtml } from '../../src/report/render-report-html.js';
import { ReportStats } from '../../src/report/report-stats.js';

const DISTINCT = 20_000;

/** Gathered numbers whose map_type holds `DISTINCT` values, value k held by 1 + (k * 7919) % 97 records. */
function manyMapTypes() {
  const gathered = new ReportStats().gathered();
  const counts = gathered.categories.get('map_type')!;
  for (let k = 0; k < DISTINCT; k++) counts.set(`type ${k}`, 1 + ((k * 7919) % 97));
  counts.set(null, 3);
  gathered.records = [...counts.values()].reduce((a, b) => a + b, 0);
  return { gathered, counts };
}

/** The marks of the chart `id` in a page: their labels and values. */
function marks(html: string, id: string): { label: string; value: number }[] {
  const chart = new RegExp(`<svg data-chart="${id}"[^]*?</svg>`).exec(html)![0];
  return [...chart.matchAll(/class="pt" data-label="([^"]*)" data-value="([^"]*)"/g)].map((m) => ({
    label: m[1]!,
    value: Number(m[2]),
  }));
}

describe('a category column of 20,000 distinct values', () => {
  it('is charted as its 20 most common values and one bar for the rest, counted exactly', () => {
    const { gathered, counts } = manyMapTypes();
    const html = renderReportHtml(buildReport(gathered, { source: 'run' }), 'many');
    const bars = marks(html, 'counts-map_type');
    expect(bars.length).toBeLessThanOrEqual(21);
    expect(bars).toHaveLength(21);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    expect(bars.slice(0, 20).map((b) => b.value)).toEqual(sorted.slice(0, 20));
    const rest = sorted.slice(20).reduce((a, b) => a + b, 0);
    expect(bars[20]).toEqual({ label: `(${(DISTINCT + 1 - 20).toLocaleString('en-US')} other values)`, value: rest });
    expect(bars.reduce((a, b) => a + b.value, 0)).toBe(gathered.records);
  });

  it('lists the 20 in the document, and the rest as their number of values and of records', () => {
    const { gathered, counts } = manyMapTypes();
    const data = buildReport(gathered, { source: 'run' });
    expect(data.counts['map_type']).toHaveLength(20);
    const listed = data.counts['map_type']!.reduce((a, b) => a + b.count, 0);
    expect(data.counts_other['map_type']).toEqual({ values: counts.size - 20, count: gathered.records - listed });
    expect(data.counts_other['modality']).toEqual({ values: 0, count: 0 });
    expect(JSON.stringify(data).length).toBeLessThan(50_000);
  });
});
