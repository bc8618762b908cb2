/**
 * Hand-written SVG charts for the report: horizontal bars, columns, 100% stacked bars and a line. Each chart is one
 * `<svg data-chart="…">` whose marks (`class="pt"`) carry their label and value (`data-label`, `data-value`) and a
 * `<title>` that browsers show on hover; axis labels are text in the SVG, and where there is room the numbers stand
 * beside the marks. Everything scales with the page (viewBox), so it reads on a phone and prints.
 */

/** One data point of a chart. */
export interface Point {
  label: string;
  value: number;
}

/** One row of a stacked chart: its parts in legend order. */
export interface StackedRow {
  label: string;
  parts: number[];
}

/** The colours of the parts of stacked charts, in order. */
export const PALETTE = ['#2f6da3', '#e39b2d', '#a9b4bf', '#c2504c', '#5a9e6f'];

const WIDTH = 640;
const LABEL_WIDTH = 190;
const ROW = 22;

/** Text safe inside an HTML or SVG element or attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number with thousands separators: 12,345 (fractions to 3 digits). */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** A share as a percentage with one decimal: 12.3%. */
export function formatShare(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A text element of class `cls` at (x, y), anchored at `anchor`. */
function text(cls: string, x: number, y: number, content: string, anchor = 'start'): string {
  const at = `x="${Number(x.toFixed(1))}" y="${Number(y.toFixed(1))}"`;
  return `<text${cls === '' ? '' : ` class="${cls}"`} ${at} text-anchor="${anchor}">${escapeHtml(content)}</text>`;
}

/** A row's label left of its bar, cut to fit (the whole label is in the bar's title). */
function label(x: number, y: number, content: string): string {
  return text('', x, y, shorten(content, 26), 'end');
}

/** The y axis's label, turned to read upwards, halfway up the plot. */
function yLabel(middle: number, content: string): string {
  const at = `x="12" y="${middle}" transform="rotate(-90 12 ${middle})"`;
  return `<text class="axis" ${at} text-anchor="middle">${escapeHtml(content)}</text>`;
}

function open(id: string, title: string, height: number): string {
  const label = escapeHtml(title);
  return `<svg data-chart="${escapeHtml(id)}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${label}">`;
}

/** A data point's mark: an SVG element `tag` with `attributes`, its label and value, and its hover title. */
function mark(tag: 'rect' | 'circle', attributes: string, p: Point, title: string): string {
  const data = `class="pt" data-label="${escapeHtml(p.label)}" data-value="${p.value}"`;
  return `<${tag} ${attributes} ${data}><title>${escapeHtml(title)}</title></${tag}>`;
}

/** Horizontal bars, one per point, with the value (and its share of `total`, when given) beside each. */
export function barChart(id: string, title: string, points: Point[], axis: string, total?: number): string {
  const max = Math.max(1, ...points.map((p) => p.value));
  const plot = WIDTH - LABEL_WIDTH - 110;
  const height = points.length * ROW + 34;
  const parts = [open(id, title, height)];
  points.forEach((p, i) => {
    const y = i * ROW + 4;
    const w = Math.max(p.value > 0 ? 1 : 0, (plot * p.value) / max);
    const share = total === undefined ? '' : ` (${formatShare(p.value, total)})`;
    const text = `${formatNumber(p.value)}${share}`;
    parts.push(label(LABEL_WIDTH - 6, y + 15, p.label));
    const rect = `x="${LABEL_WIDTH}" y="${y + 2}" width="${w.toFixed(1)}" height="${ROW - 6}" fill="${PALETTE[0]}"`;
    parts.push(mark('rect', rect, p, `${p.label}: ${text}`));
    parts.push(`<text x="${(LABEL_WIDTH + w + 5).toFixed(1)}" y="${y + 15}">${text}</text>`);
  });
  parts.push(`<text class="axis" x="${LABEL_WIDTH}" y="${height - 8}">${escapeHtml(axis)} →</text>`);
  return parts.join('') + '</svg>';
}

/** Vertical columns over an ordered axis (months, histogram bins), with the y axis from 0 to the largest value. */
export function columnChart(id: string, title: string, points: Point[], xAxis: string, yAxis: string): string {
  const [left, top, bottom, height] = [64, 18, 52, 250];
  const plotW = WIDTH - left - 12;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...points.map((p) => p.value));
  const step = plotW / Math.max(1, points.length);
  const every = Math.max(1, Math.ceil(points.length / 8));
  const parts = [open(id, title, height)];
  for (const f of [0, 0.5, 1]) {
    const y = top + plotH * (1 - f);
    parts.push(`<line class="grid" x1="${left}" x2="${WIDTH - 12}" y1="${y}" y2="${y}"/>`);
    parts.push(text('tick', left - 4, y + 4, formatNumber(Math.round(max * f)), 'end'));
  }
  points.forEach((p, i) => {
    const h = (plotH * p.value) / max;
    const x = left + i * step;
    const w = Math.max(1, step - (step > 4 ? 2 : 0));
    const [rx, ry, rw, rh] = [x, top + plotH - h, w, h].map((n) => n.toFixed(2));
    const rect = `x="${rx}" y="${ry}" width="${rw}" height="${rh}" fill="${PALETTE[0]}"`;
    parts.push(mark('rect', rect, p, `${p.label}: ${formatNumber(p.value)}`));
    if (points.length <= 16 && p.value > 0) {
      parts.push(text('tick', x + w / 2, top + plotH - h - 3, formatNumber(p.value), 'middle'));
    }
    if (i % every === 0) {
      parts.push(text('tick', x, top + plotH + 14, shorten(p.label, 12)));
    }
  });
  parts.push(`<text class="axis" x="${left}" y="${height - 8}">${escapeHtml(xAxis)} →</text>`);
  parts.push(yLabel(top + plotH / 2, yAxis));
  return parts.join('') + '</svg>';
}

/** 100% stacked bars, one row per label, parts coloured in `legend` order, the first part's share beside each row. */
export function stackedChart(id: string, title: string, rows: StackedRow[], legend: string[], axis: string): string {
  const plot = WIDTH - LABEL_WIDTH - 70;
  const height = rows.length * ROW + 56;
  const parts = [open(id, title, height)];
  legend.forEach((name, k) => {
    const x = LABEL_WIDTH + k * 110;
    parts.push(`<rect x="${x}" y="4" width="12" height="12" fill="${PALETTE[k]}"/>`, text('', x + 16, 15, name));
  });
  rows.forEach((row, i) => {
    const y = i * ROW + 26;
    const total = row.parts.reduce((a, b) => a + b, 0);
    let x = LABEL_WIDTH;
    parts.push(label(LABEL_WIDTH - 6, y + 15, row.label));
    row.parts.forEach((value, k) => {
      const w = total === 0 ? 0 : (plot * value) / total;
      const p = { label: `${row.label} / ${legend[k]}`, value };
      const rect = `x="${x.toFixed(2)}" y="${y + 2}" width="${w.toFixed(2)}" height="${ROW - 6}" fill="${PALETTE[k]}"`;
      const title = `${row.label}, ${legend[k]}: ${formatNumber(value)} (${formatShare(value, total)})`;
      parts.push(mark('rect', rect, p, title));
      x += w;
    });
    parts.push(`<text x="${LABEL_WIDTH + plot + 6}" y="${y + 15}">${formatShare(row.parts[0] ?? 0, total)}</text>`);
  });
  parts.push(`<text class="axis" x="${LABEL_WIDTH}" y="${height - 8}">${escapeHtml(axis)} →</text>`);
  return parts.join('') + '</svg>';
}

/** A line through the points in order, each a dot with its value on hover and the first and last labelled. */
export function lineChart(id: string, title: string, points: Point[], xAxis: string, yAxis: string): string {
  const [left, top, bottom, height] = [72, 24, 52, 230];
  const plotW = WIDTH - left - 24;
  const plotH = height - top - bottom;
  const values = points.map((p) => p.value);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const span = hi - lo || Math.max(1, hi);
  const base = hi === lo ? Math.max(0, lo - span / 2) : lo;
  const xy = (i: number, v: number): [number, number] => [
    left + (points.length === 1 ? plotW / 2 : (plotW * i) / (points.length - 1)),
    top + plotH * (1 - (v - base) / span),
  ];
  const parts = [open(id, title, height)];
  for (const v of hi === lo ? [hi] : [lo, hi]) {
    const y = xy(0, v)[1];
    parts.push(`<line class="grid" x1="${left}" x2="${WIDTH - 24}" y1="${y}" y2="${y}"/>`);
    parts.push(`<text class="tick" x="${left - 4}" y="${y + 4}" text-anchor="end">${formatNumber(v)}</text>`);
  }
  const path = points
    .map((p, i) =>
      xy(i, p.value)
        .map((n) => n.toFixed(1))
        .join(','),
    )
    .join(' ');
  parts.push(`<polyline points="${path}" fill="none" stroke="${PALETTE[0]}" stroke-width="2"/>`);
  points.forEach((p, i) => {
    const [x, y] = xy(i, p.value);
    const dot = `cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4" fill="${PALETTE[i === points.length - 1 ? 1 : 0]}"`;
    parts.push(mark('circle', dot, p, `${p.label}: ${formatNumber(p.value)}`));
    if (i === 0 || i === points.length - 1) {
      const anchor = points.length === 1 ? 'middle' : i === 0 ? 'start' : 'end';
      parts.push(text('tick', x, top + plotH + 16, p.label, anchor));
      parts.push(text('tick', x, y - 8, formatNumber(p.value), anchor));
    }
  });
  parts.push(`<text class="axis" x="${left}" y="${height - 8}">${escapeHtml(xAxis)} →</text>`);
  parts.push(yLabel(top + plotH / 2, yAxis));
  return parts.join('') + '</svg>';
}
