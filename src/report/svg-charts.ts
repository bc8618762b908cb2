/**
 * Hand-written SVG charts for the report (bars, columns, stacked bars, a line), each mark carrying its label and value,
 * scaled by viewBox so that they read on a phone and print. They are drawn 380 units wide, about a phone's width, so
 * that text stays legible; a label that would not fit is cut or left out, its whole text in the mark's title.
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

/** The charts' width in SVG units, and the font sizes the page's style gives their text and their ticks. */
export const CHART_WIDTH = 380;
const FONT = 13;
const SMALL = 12.5;
/** Height of a row of a bar chart. */
const ROW = 24;
/** The label column of bar charts takes at most this share of the width. */
const LABEL_SHARE = 0.42;

/** Text safe inside an HTML or SVG element or attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One formatter for every number of a report: `toLocaleString` with options would build one on every call. */
const NUMBERS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** A number with thousands separators: 12,345 (fractions to 3 digits). */
export function formatNumber(n: number): string {
  return NUMBERS.format(n);
}

/** A share as a percentage with one decimal: 12.3%. */
export function formatShare(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** The width of a character as a share of the font size, on the wide side of common sans-serif faces. */
function em(c: string): number {
  if (" .,:;'|!()[]ijlft/-".includes(c)) return 0.4;
  if ('mwMW%…—'.includes(c)) return 1;
  return /[A-Z0-9→–#&@]/.test(c) ? 0.72 : 0.62;
}

/**
 * The estimated width of `content` at `size`, measured no further than past `limit`: what lies beyond is not drawn, so
 * that the work is that of the text shown, however long the text.
 */
function widthOf(content: string, size = FONT, limit = Infinity): number {
  let ems = 0;
  for (const c of content) {
    ems += em(c);
    if (ems * size > limit) break;
  }
  return ems * size;
}

/**
 * `content` cut with an ellipsis to fit `width` at `size`: its longest start (one character at least) that fits with
 * the ellipsis, found in one walk over the text, since widths only add up.
 */
function fit(content: string, width: number, size = FONT): string {
  if (widthOf(content, size, width) <= width) return content;
  let [ems, end] = [0, 0];
  for (const c of content) {
    if (end > 0 && (ems + em(c) + em('…')) * size > width) break;
    ems += em(c);
    end += c.length;
  }
  return `${content.slice(0, end)}…`;
}

/** A text element of class `cls` at (x, y), anchored at `anchor`. */
function text(cls: string, x: number, y: number, content: string, anchor = 'start'): string {
  const at = `x="${Number(x.toFixed(1))}" y="${Number(y.toFixed(1))}"`;
  return `<text${cls === '' ? '' : ` class="${cls}"`} ${at} text-anchor="${anchor}">${escapeHtml(content)}</text>`;
}

/** A label to place at `x`, on its line's `y` unless it gives its own. */
type Label = { x: number; y?: number; content: string };

/** Height of a line of labels. */
const LABEL_LINE = 15;

/**
 * Labels along a line at their x, each centred where it fits between `min` (the plot's left, clear of the y axis's
 * ticks) and the chart's right edge, else flush with either. A label that would touch one placed goes on the next of
 * `lines` lines, or is left out; `keep` is placed first (the last point's, say). Returns the texts and lines used.
 */
function spreadLabels(cls: string, y: number, labels: Label[], options: SpreadOptions = {}): [string[], number] {
  const { keep, min = 0, lines = 1 } = options;
  const placed: { from: number; to: number; line: number; svg: string }[] = [];
  const place = (l: Label) => {
    const w = widthOf(l.content, SMALL);
    const from = Math.min(Math.max(l.x - w / 2, min), CHART_WIDTH - w);
    const clear = (line: number) => placed.every((p) => p.line !== line || from >= p.to + 6 || from + w <= p.from - 6);
    const line = Array.from({ length: lines }, (_, k) => k).find(clear);
    if (line === undefined) return;
    placed.push({ from, to: from + w, line, svg: text(cls, from, (l.y ?? y) + line * LABEL_LINE, l.content) });
  };
  if (keep !== undefined && labels[keep] !== undefined) place(labels[keep]);
  labels.forEach((l, i) => i !== keep && place(l));
  const used = Math.max(0, ...placed.map((p) => p.line + 1));
  return [placed.sort((a, b) => a.from - b.from).map((p) => p.svg), used];
}

/** How spreadLabels places labels: the one placed first, the leftmost x, the lines it may use (1). */
interface SpreadOptions {
  keep?: number;
  min?: number;
  lines?: number;
}

/** Where a row label may break: after a name's `_`, a space, `-` or `/`. */
const BREAK = /[_\s/-]/;

/**
 * A row label's lines within `width`: itself, or two lines broken after the last break where the first fits (else
 * after as many characters as fit), the second cut to fit. Names that share a long start (`cognitive_paradigm_…`)
 * stay whole and distinct, as long as two lines hold them; the text beyond them is not read.
 */
function labelLines(content: string, width: number): string[] {
  if (widthOf(content, FONT, width) <= width) return [content];
  let [used, end, broken] = [0, 0, 0];
  for (const c of content) {
    if ((used += em(c) * FONT) > width && end > 0) break;
    end += c.length;
    if (BREAK.test(c)) broken = end;
  }
  // A space broken at starts the second line, where it shows nothing but keeps the words apart in the text read.
  const first = content.slice(0, broken > 0 ? broken : end);
  const space = /\s$/.test(first) ? ' ' : '';
  return [first.trimEnd(), fit(space + content.slice(first.length).trimStart(), width)];
}

/** The rows of a bar chart from `top`: each label's lines and its row's `y` (a label on two lines adds a line). */
function layoutRows(labelled: { label: string }[], width: number, top: number) {
  let bottom = top;
  const rows = labelled.map(({ label }) => {
    const lines = labelLines(label, width);
    const extra = (lines.length - 1) * LABEL_LINE;
    const row = { lines, y: bottom + extra / 2 }; // a one-line row's top, centred in the taller row
    bottom += ROW + extra;
    return row;
  });
  return { rows, bottom };
}

/** A row's label left of its bar, its lines ending at `x`, centred on line `y` (the whole label is in the title). */
function rowLabel(x: number, y: number, lines: string[]): string {
  if (lines.length === 1) return text('', x, y, lines[0]!, 'end');
  const first = y - ((lines.length - 1) * LABEL_LINE) / 2;
  const at = (n: number) => Number(n.toFixed(1));
  const spans = lines.map((l, i) => `<tspan x="${at(x)}" y="${at(first + i * LABEL_LINE)}">${escapeHtml(l)}</tspan>`);
  return `<text x="${at(x)}" y="${at(first)}" text-anchor="end">${spans.join('')}</text>`;
}

/** The width of the label column for `labels`: as wide as the longest, within LABEL_SHARE of the chart. */
function labelColumn(labels: string[]): number {
  const most = CHART_WIDTH * LABEL_SHARE;
  return Math.min(most, Math.max(40, ...labels.map((l) => widthOf(l, FONT, most)))) + 6;
}

/** The x axis's label under the plot, starting at `x` or sooner so that it ends inside the chart. */
function xLabel(x: number, y: number, content: string): string {
  const label = fit(`${content} →`, CHART_WIDTH, SMALL);
  return text('axis', Math.max(0, Math.min(x, CHART_WIDTH - widthOf(label, SMALL))), y, label);
}

/** The y axis's label, turned to read upwards, halfway up the plot. */
function yLabel(middle: number, content: string, height: number): string {
  const at = `x="12" y="${middle}" transform="rotate(-90 12 ${middle})"`;
  return `<text class="axis" ${at} text-anchor="middle">${escapeHtml(fit(content, height, SMALL))}</text>`;
}

function open(id: string, title: string, height: number): string {
  const label = escapeHtml(title);
  const box = `viewBox="0 0 ${CHART_WIDTH} ${Math.ceil(height)}"`;
  return `<svg data-chart="${escapeHtml(id)}" ${box} role="img" aria-label="${label}">`;
}

/** A data point's mark: an SVG element `tag` with `attributes`, its label and value, and its hover title. */
function mark(tag: 'rect' | 'circle', attributes: string, p: Point, title: string): string {
  const data = `class="pt" data-label="${escapeHtml(p.label)}" data-value="${p.value}"`;
  return `<${tag} ${attributes} ${data}><title>${escapeHtml(title)}</title></${tag}>`;
}

/** Horizontal bars, one per point, with the value (and its share of `total`, when given) beside each. */
export function barChart(id: string, title: string, points: Point[], axis: string, total?: number): string {
  const max = Math.max(1, ...points.map((p) => p.value));
  const values = points.map(
    (p) => `${formatNumber(p.value)}${total === undefined ? '' : ` (${formatShare(p.value, total)})`}`,
  );
  const left = labelColumn(points.map((p) => p.label));
  const plot = CHART_WIDTH - left - Math.max(...values.map((v) => widthOf(v)), 0) - 8;
  const { rows, bottom } = layoutRows(points, left - 6, 4);
  const height = bottom + 26;
  const parts = [open(id, title, height)];
  points.forEach((p, i) => {
    const { lines, y } = rows[i]!;
    const w = Math.max(p.value > 0 ? 1 : 0, (plot * p.value) / max);
    parts.push(rowLabel(left - 6, y + 15, lines));
    const rect = `x="${left}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW - 8}" fill="${PALETTE[0]}"`;
    parts.push(mark('rect', rect, p, `${p.label}: ${values[i]!}`));
    parts.push(text('', left + w + 5, y + 15, values[i]!));
  });
  parts.push(xLabel(left, height - 8, axis));
  return parts.join('') + '</svg>';
}

/**
 * Vertical columns over an ordered axis (months, histogram bins), with the y axis from 0 to the largest value. The x
 * axis names each column under its middle, or, given `edges` (one more than the points: a histogram's bin edges),
 * names the edges between them; labels that would touch are left out, the value over a column where it fits.
 */
export function columnChart(
  id: string,
  title: string,
  points: Point[],
  xAxis: string,
  yAxis: string,
  edges?: string[],
): string {
  const max = Math.max(1, ...points.map((p) => p.value));
  const ticks = [0, 0.5, 1].map((f) => ({ f, label: formatNumber(Math.round(max * f)) }));
  const [left, top, bottom, height] = [Math.max(...ticks.map((t) => widthOf(t.label, SMALL))) + 28, 22, 46, 220];
  const plotW = CHART_WIDTH - left - 10;
  const plotH = height - top - bottom;
  const step = plotW / Math.max(1, points.length);
  const parts = [open(id, title, height)];
  for (const { f, label } of ticks) {
    const y = top + plotH * (1 - f);
    parts.push(`<line class="grid" x1="${left}" x2="${CHART_WIDTH - 10}" y1="${y}" y2="${y}"/>`);
    parts.push(text('tick', left - 4, y + 4, label, 'end'));
  }
  const fits = points.every((p) => widthOf(formatNumber(p.value), SMALL) <= step - 2);
  points.forEach((p, i) => {
    const h = (plotH * p.value) / max;
    const x = left + i * step;
    const w = Math.max(1, step - (step > 4 ? 2 : 0));
    const [rx, ry, rw, rh] = [x, top + plotH - h, w, h].map((n) => n.toFixed(2));
    const rect = `x="${rx}" y="${ry}" width="${rw}" height="${rh}" fill="${PALETTE[0]}"`;
    parts.push(mark('rect', rect, p, `${p.label}: ${formatNumber(p.value)}`));
    if (fits && p.value > 0) parts.push(text('tick', x + w / 2, top + plotH - h - 3, formatNumber(p.value), 'middle'));
  });
  const names =
    edges === undefined
      ? points.map((p, i) => ({ x: left + (i + 0.5) * step, content: p.label }))
      : edges.map((content, i) => ({ x: left + i * step, content }));
  parts.push(...spreadLabels('tick', top + plotH + 15, names, { min: left - 2 })[0]);
  parts.push(xLabel(left, height - 8, xAxis));
  parts.push(yLabel(top + plotH / 2, yAxis, plotH));
  return parts.join('') + '</svg>';
}

/** The legend of a stacked chart: a swatch and a name per part, in rows that fit the chart; returns its height. */
function legendOf(legend: string[], parts: string[]): number {
  let [x, y] = [0, 4];
  legend.forEach((name, k) => {
    const w = 16 + widthOf(name) + 14;
    if (x > 0 && x + w > CHART_WIDTH) [x, y] = [0, y + 18];
    parts.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${PALETTE[k]}"/>`, text('', x + 16, y + 11, name));
    x += w;
  });
  return y + 18;
}

/** 100% stacked bars, one row per label, parts coloured in `legend` order, the first part's share beside each row. */
export function stackedChart(id: string, title: string, rows: StackedRow[], legend: string[], axis: string): string {
  const left = labelColumn(rows.map((r) => r.label));
  const plot = CHART_WIDTH - left - widthOf('100.0%') - 10;
  const parts: string[] = [];
  const top = legendOf(legend, parts) + 4;
  const layout = layoutRows(rows, left - 6, top);
  const height = layout.bottom + 26;
  rows.forEach((row, i) => {
    const { lines, y } = layout.rows[i]!;
    const total = row.parts.reduce((a, b) => a + b, 0);
    let x = left;
    parts.push(rowLabel(left - 6, y + 15, lines));
    row.parts.forEach((value, k) => {
      const w = total === 0 ? 0 : (plot * value) / total;
      const p = { label: `${row.label} / ${legend[k]}`, value };
      const rect = `x="${x.toFixed(2)}" y="${y + 3}" width="${w.toFixed(2)}" height="${ROW - 8}" fill="${PALETTE[k]}"`;
      const title = `${row.label}, ${legend[k]}: ${formatNumber(value)} (${formatShare(value, total)})`;
      parts.push(mark('rect', rect, p, title));
      x += w;
    });
    parts.push(text('', left + plot + 5, y + 15, formatShare(row.parts[0] ?? 0, total)));
  });
  parts.push(xLabel(left, height - 8, axis));
  return open(id, title, height) + parts.join('') + '</svg>';
}

/**
 * A line of counts through the points in order, on a y axis from 0 (a change of a few among thousands stays a small
 * step), each a dot with its value over it and its label under the axis, on up to three lines (a label that would
 * still touch another is left out, the last point's kept; every dot has its label and value on hover).
 */
export function lineChart(id: string, title: string, points: Point[], xAxis: string, yAxis: string): string {
  const hi = Math.max(0, ...points.map((p) => p.value));
  const ticks = hi === 0 ? [0] : [0, hi];
  const [left, top, plotH] = [Math.max(...ticks.map((v) => widthOf(formatNumber(v), SMALL))) + 28, 24, 124];
  const plotW = CHART_WIDTH - left - 24;
  const span = hi || 1;
  const xy = points.map((p, i): [number, number] => [
    left + (points.length === 1 ? plotW / 2 : (plotW * i) / (points.length - 1)),
    top + plotH * (1 - p.value / span),
  ]);
  const parts = ticks.map((v) => {
    const y = top + plotH * (1 - v / span);
    const grid = `<line class="grid" x1="${left}" x2="${CHART_WIDTH - 24}" y1="${y}" y2="${y}"/>`;
    return grid + text('tick', left - 4, y + 4, formatNumber(v), 'end');
  });
  const path = xy.map((at) => at.map((n) => n.toFixed(1)).join(',')).join(' ');
  parts.push(`<polyline points="${path}" fill="none" stroke="${PALETTE[0]}" stroke-width="2"/>`);
  points.forEach((p, i) => {
    const [x, y] = xy[i]!.map((n) => n.toFixed(1));
    const dot = `cx="${x}" cy="${y}" r="4" fill="${PALETTE[i === points.length - 1 ? 1 : 0]}"`;
    parts.push(mark('circle', dot, p, `${p.label}: ${formatNumber(p.value)}`));
  });
  const [labels, height] = lineLabels(points, xy, { keep: points.length - 1, min: left - 2 }, top + plotH);
  parts.push(...labels, xLabel(left, height - 8, xAxis), yLabel(top + plotH / 2, yAxis, plotH));
  return open(id, title, height) + parts.join('') + '</svg>';
}

/** Each point's value over its dot (at `xy`) and its label under the plot's `bottom`; returns them and the height. */
function lineLabels(
  points: Point[],
  xy: [number, number][],
  options: SpreadOptions,
  bottom: number,
): [string[], number] {
  // Two values are never placed side by side closer than their widths, whatever their heights.
  const over = points.map((p, i) => ({ x: xy[i]![0], y: xy[i]![1] - 9, content: formatNumber(p.value) }));
  const [values] = spreadLabels('tick', 0, over, options);
  const under = points.map((p, i) => ({ x: xy[i]![0], content: p.label }));
  const [labels, lines] = spreadLabels('tick', bottom + 16, under, { ...options, lines: 3 });
  return [[...values, ...labels], bottom + 16 + (lines - 1) * LABEL_LINE + 30];
}
