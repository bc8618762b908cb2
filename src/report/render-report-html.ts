/**
 * The report page: one self-contained HTML file (inline CSS and SVG, the data as inline JSON, no script that runs, no
 * font or request of any kind: its Content-Security-Policy forbids them), readable on a phone and when printed.
 */
import type { Bin, Distribution, ReportData } from './report-data.js';
import { CHARTED_CATEGORIES, CHARTED_DISTRIBUTIONS, CHARTED_FLAGS } from './report-stats.js';
import { figure } from './html-parts.js';
import { runSection } from './run-section.js';
import { barChart, columnChart, escapeHtml, formatNumber, formatShare, lineChart, stackedChart } from './svg-charts.js';

/** The id of the `<script type="application/json">` element holding the report's numbers. */
export const REPORT_DATA_ID = 'report-data';

const STYLE = `
:root { color-scheme: light; --ink: #1d2733; --soft: #5b6772; --line: #d9dee3; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
main { max-width: 1180px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.5rem; margin: 0.2rem 0; } h2 { font-size: 1.15rem; margin: 1.6rem 0 0.4rem; }
h3 { font-size: 0.95rem; margin: 0.6rem 0 0.2rem; }
body, p, li, td, figcaption, code { overflow-wrap: anywhere; } .soft { color: var(--soft); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 460px), 1fr)); gap: 8px 24px; }
figure { margin: 0; break-inside: avoid; } figcaption { font-size: 0.85rem; color: var(--soft); }
svg { width: 100%; max-width: 480px; height: auto; display: block; font-size: 13px; fill: var(--ink); }
svg .tick, svg .axis { font-size: 12.5px; fill: var(--soft); } svg .axis { font-style: italic; }
svg .grid { stroke: var(--line); } svg .pt:hover { opacity: 0.75; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 3px 8px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
.facts { max-width: 900px; } .facts th { width: 10.5em; font-weight: 600; overflow-wrap: normal; }
@media (max-width: 560px) { .facts th, .facts td { display: block; width: auto; }
  .facts th { border-bottom: 0; padding-top: 8px; color: var(--soft); } }
.kpi { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0.6rem 0; } .kpi div { min-width: 120px; }
.kpi b { display: block; font-size: 1.35rem; } .bad { color: #b3261e; } .good { color: #1e7b3a; }
@media print { body { font-size: 10pt; } main { max-width: none; padding: 0; } h2 { break-after: avoid; }
  .grid { grid-template-columns: 1fr 1fr; } }
`;

/** The report page for `data`, titled after `title` (the snapshot's name). */
export function renderReportHtml(data: ReportData, title: string): string {
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`img-etl report: ${title}`)}</title><style>${STYLE}</style></head><body><main>`,
    `<h1>NeuroVault snapshot ${escapeHtml(title)}</h1>`,
    `<p class="soft">${escapeHtml(data.tool)} · ${formatNumber(data.records)} records · ` +
      `read from ${escapeHtml(data.source)} · the numbers behind every chart are in <code>report.json</code> ` +
      'and in this page.</p>',
    runSection(data),
    growthSection(data),
    kindsSection(data),
    atlasSection(data),
    distributionSection(data),
    collectionSection(data),
    fillSection(data),
    changeSection(data),
    `<script type="application/json" id="${REPORT_DATA_ID}">${json}</script>`,
    '</main></body></html>',
    '',
  ].join('\n');
}

function growthSection(data: ReportData): string {
  const months = data.added_per_month.map((m) => ({ label: m.month, value: m.count }));
  const nulls = data.add_date_nulls > 0 ? ` ${formatNumber(data.add_date_nulls)} records have no add_date.` : '';
  const title = 'Maps added per month';
  const monthly =
    months.length === 0
      ? '<p class="soft">No record has an add_date.</p>'
      : figure(
          title,
          columnChart('added-per-month', title, months, 'month of add_date (UTC)', 'maps'),
          `Records by the month of their add_date, from the first to the last.${nulls}`,
        );
  const legend = ['true', 'false', 'null'];
  const rows = CHARTED_FLAGS.map((f) => {
    const counts = data.flags[f]!;
    return { label: f, parts: [counts.true, counts.false, counts.null] };
  });
  const flagsTitle = 'Valid, thresholded and not-MNI maps';
  const flags = figure(
    flagsTitle,
    stackedChart('flags', flagsTitle, rows, legend, 'share of records'),
    'The number beside each bar is the share of true.',
  );
  return `<h2>Maps over time</h2><div class="grid">${monthly}${flags}</div>`;
}

function kindsSection(data: ReportData): string {
  const charts = CHARTED_CATEGORIES.map((c) => {
    const points = data.counts[c]!.map((v) => ({ label: v.value ?? '(null)', value: v.count }));
    const other = data.counts_other[c]!;
    const values = points.length + other.values;
    if (other.values > 0) points.push({ label: `(${formatNumber(other.values)} other values)`, value: other.count });
    const title = `Maps by ${c}`;
    const listed = other.values > 0 ? `the ${points.length - 1} most common and the others as one bar` : 'each';
    return figure(
      title,
      barChart(`counts-${c}`, title, points, 'maps', data.records),
      `${formatNumber(values)} distinct values; ${listed}, with its share of all maps.`,
    );
  });
  return `<h2>What kind of maps</h2><div class="grid">${charts.join('')}</div>`;
}

function atlasSection(data: ReportData): string {
  const { paradigm, contrast } = data.cognitive_atlas;
  const rows = [
    { label: 'paradigm (task)', parts: [paradigm.named, paradigm.other, paradigm.blank] },
    { label: 'contrast', parts: [contrast.named, contrast.other, contrast.blank] },
  ];
  const title = 'Cognitive Atlas: named, "None / Other" or blank';
  const chart = stackedChart('cognitive-atlas', title, rows, ['named', 'None / Other', 'blank'], 'share of records');
  const states = (s: { named: number; other: number; blank: number }) =>
    `${formatNumber(s.named)} named, ${formatNumber(s.other)} "None / Other", ${formatNumber(s.blank)} blank`;
  const caption = `Paradigm: ${states(paradigm)}; contrast: ${states(contrast)}.`;
  return `<h2>Cognitive Atlas</h2>${figure(title, chart, caption)}`;
}

function binLabel(bin: Bin, scale: Distribution['scale'], bytes: boolean): string {
  const show = (n: number) => (bytes ? formatBinaryBytes(n) : formatNumber(n));
  if (scale === 'linear') return `${bin.from}–${bin.to}`;
  if (bin.from === 0) return '0';
  return bin.to - bin.from === 1 ? show(bin.from) : `${show(bin.from)}–${show(bin.to)}`;
}

function formatBinaryBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let k = 0;
  while (n >= 1024 && k < units.length - 1 && n % 1024 === 0) [n, k] = [n / 1024, k + 1];
  return `${formatNumber(n)} ${units[k]}`;
}

/** The edges of a histogram's bins, as the x axis names them: the first bin's start, then each bin's end. */
function binEdges(d: Distribution, bytes: boolean): string[] {
  const show = (n: number) => (bytes ? formatBinaryBytes(n) : formatNumber(n));
  return d.bins.length === 0 ? [] : [d.bins[0]!.from, ...d.bins.map((b) => b.to)].map(show);
}

/** A histogram of `d`, the records holding a value in each bin; its caption says the range, nulls and outliers. */
function distributionChart(id: string, title: string, d: Distribution, axis: string, bytes = false): string {
  const points = d.bins.map((b) => ({ label: binLabel(b, d.scale, bytes), value: b.count }));
  const [count, min, max] = [d.count, d.min ?? 0, d.max ?? 0].map(formatNumber);
  const range = d.count === 0 ? 'no record with a value' : `${count} records with a value, from ${min} to ${max}`;
  const [below, above] = [d.below, d.above].map(formatNumber);
  const outside = d.below + d.above > 0 ? `; ${below} below and ${above} above the bins` : '';
  const chart = columnChart(id, title, points, axis, 'records', binEdges(d, bytes));
  return figure(title, chart, `${range}, ${formatNumber(d.nulls)} null${outside}.`);
}

/** The collections with maps by their number of maps; its caption counts the listed collections without any. */
function collectionSizes(c: ReportData['collections']): string {
  const points = c.sizes.bins.map((b) => ({ label: binLabel(b, c.sizes.scale, false), value: b.count }));
  const title = 'Collections by number of maps';
  const axis = 'maps in the collection (bins double)';
  const chart = columnChart('collection-sizes', title, points, axis, 'collections', binEdges(c.sizes, false));
  const [min, max] = [c.sizes.min ?? 0, c.sizes.max ?? 0].map(formatNumber);
  const range = `${formatNumber(c.count)} collections with maps, from ${min} to ${max} maps each`;
  const none =
    c.listed === null ? '' : `; ${formatNumber(Math.max(0, c.listed - c.count))} listed collections have none`;
  return figure(title, chart, `${range}${none}.`);
}

function distributionSection(data: ReportData): string {
  const axes: Record<keyof typeof CHARTED_DISTRIBUTIONS, string> = {
    number_of_subjects: 'subjects (bins double)',
    brain_coverage: 'brain coverage, %',
    perc_bad_voxels: 'bad voxels, %',
    file_size: 'file size (bins double)',
  };
  const charts = Object.entries(axes).map(([c, axis]) =>
    distributionChart(`distribution-${c}`, c, data.distributions[c]!, axis, c === 'file_size'),
  );
  return `<h2>Distributions</h2><div class="grid">${charts.join('')}</div>`;
}

function collectionSection(data: ReportData): string {
  const c = data.collections;
  const sizes = collectionSizes(c);
  const points = c.largest.map((l) => ({ label: collectionLabel(l), value: l.records }));
  const largestTitle = 'Largest collections';
  const largest = figure(
    largestTitle,
    barChart('largest-collections', largestTitle, points, 'maps', data.records),
    `The ${c.largest.length} largest of the ${formatNumber(c.count)} collections with maps, by id and name, ` +
      'with their share of all maps.',
  );
  const ownerPoints = (c.owners ?? []).map((o) => ({ label: o.owner, value: o.records }));
  const owners =
    c.owners === null
      ? `<p class="soft">Owners' share: ${escapeHtml(c.owners_note ?? '')}.</p>`
      : figure(
          'Largest owners',
          barChart('owners', 'Largest owners', ownerPoints, 'maps', data.records),
          'The owners holding most maps, with their share of all maps.',
        );
  return `<h2>Collections</h2><div class="grid">${sizes}${largest}</div>${owners}`;
}

/** A collection as a chart names it: its id and its name in the collections table, or the id alone. */
function collectionLabel(l: { collection_id: number; name: string | null }): string {
  return l.name === null ? `collection ${l.collection_id}` : `${l.collection_id} · ${l.name}`;
}

function fillSection(data: ReportData): string {
  const rows = data.fill.map((f) => ({ label: f.column, parts: [f.value, f.null, f.empty, f.sentinel] }));
  const legend = ['value', 'null', 'empty → null', 'sentinel → null'];
  const fillTitle = 'Fill of every column';
  const fill = figure(
    fillTitle,
    stackedChart('fill', fillTitle, rows, legend, 'share of records'),
    'Values, nulls as served, empty strings and sentinels turned into null; the number is the share of values.',
  );
  const keys = data.extra_keys.map((k) => ({ label: k.value ?? '', value: k.count }));
  const caption =
    `The ${keys.length} most frequent of ${formatNumber(data.extra_key_count)} keys, ` + 'by the records holding them.';
  const extra =
    keys.length === 0
      ? '<p class="soft">No record has keys beyond the schema (extra is null everywhere).</p>'
      : figure('Keys in extra', barChart('extra-keys', 'Keys in extra', keys, 'records', data.records), caption);
  return `<h2>Fill</h2><div class="grid">${fill}${extra}</div>`;
}

function changeSection(data: ReportData): string {
  const parts = ['<h2>Since the last snapshot</h2><div class="grid">'];
  const drift = data.drift;
  const none = data.drift_note ?? 'No older snapshot to compare with.';
  if (drift === null) parts.push(`<p class="soft">${escapeHtml(none)}</p>`);
  else parts.push(...driftFigures(drift));
  if (data.history.length > 0) parts.push(historyFigure(data.history));
  return parts.join('') + '</div>';
}

/** The records added, removed and changed since the older snapshot, and the fields that changed most. */
function driftFigures(drift: NonNullable<ReportData['drift']>): string[] {
  const total = drift.added + drift.removed + drift.changed + drift.unchanged;
  const kinds = ['added', 'removed', 'changed', 'unchanged'] as const;
  const counts = kinds.map((label) => ({ label, value: drift[label] }));
  const title = 'Records since the last snapshot';
  const fields = drift.fields.map((f) => ({ label: f.field, value: f.count }));
  return [
    figure(
      title,
      barChart('drift', title, counts, 'records', total),
      `Against ${drift.against}: ${formatNumber(drift.added)} added, ${formatNumber(drift.removed)} removed, ` +
        `${formatNumber(drift.changed)} changed (${formatShare(drift.changed, total)}).`,
    ),
    fields.length === 0
      ? '<p class="soft">No field changed.</p>'
      : figure(
          'Fields that changed most',
          barChart('drift-fields', 'Fields that changed most', fields, 'changed records', drift.changed),
          'Changed records per field, with the share of changed records.',
        ),
  ];
}

/** The records of every snapshot found, as a line over the snapshots' start times (`history` is not empty). */
function historyFigure(history: ReportData['history']): string {
  const points = history.map((h) => ({ label: h.snapshot, value: h.records }));
  const first = history[0]!;
  const delta = history.at(-1)!.records - first.records;
  const title = 'Records per snapshot';
  return figure(
    title,
    lineChart('history', title, points, 'snapshot (UTC start time)', 'records'),
    `${history.length} snapshots of this folder, a point each: ` +
      `${delta >= 0 ? '+' : ''}${formatNumber(delta)} since ${first.snapshot}.`,
  );
}
