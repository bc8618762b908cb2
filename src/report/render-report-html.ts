/**
 * The report page: one self-contained HTML file (inline CSS and SVG, the data as inline JSON, no script that runs, no
 * font or request of any kind: its Content-Security-Policy forbids them), readable on a phone and when printed.
 */
import type { Bin, Distribution, ReportData } from './report-data.js';
import { CHARTED_CATEGORIES, CHARTED_DISTRIBUTIONS, CHARTED_FLAGS } from './report-stats.js';
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
p, li, td, th { overflow-wrap: anywhere; } .soft { color: var(--soft); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 460px), 1fr)); gap: 8px 24px; }
figure { margin: 0; break-inside: avoid; } figcaption { font-size: 0.85rem; color: var(--soft); }
svg { width: 100%; height: auto; display: block; font-size: 12px; fill: var(--ink); }
svg .tick { font-size: 11px; fill: var(--soft); } svg .axis { font-size: 11px; fill: var(--soft); font-style: italic; }
svg .grid { stroke: var(--line); } svg .pt:hover { opacity: 0.75; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 3px 8px 3px 0;
  border-bottom: 1px solid var(--line); vertical-align: top; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
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
    `<p class="soft">${escapeHtml(data.tool)} · ${formatNumber(data.records)} records · read from ${escapeHtml(data.source)}` +
      ' · the numbers behind every chart are in <code>report.json</code> and in this page.</p>',
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

function figure(chart: string, caption: string): string {
  return `<figure>${chart}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

function kpi(label: string, value: string, tone = ''): string {
  return `<div><b class="${tone}">${escapeHtml(value)}</b>${escapeHtml(label)}</div>`;
}

function runSection(data: ReportData): string {
  const run = data.run;
  const head = '<h2>The run</h2>';
  const collections = kpi('collections', formatNumber(data.collections.count));
  if (run === null) {
    return `${head}<div class="kpi">${kpi('records', formatNumber(data.records))}${collections}</div>` +
      '<p class="soft">No manifest beside the data file: the run is not known.</p>';
  }
  const minutes = run.duration_seconds >= 120 ? `${(run.duration_seconds / 60).toFixed(1)} min` : `${run.duration_seconds.toFixed(1)} s`;
  const kpis = [
    kpi('records', formatNumber(data.records)),
    collections,
    kpi(run.complete ? 'complete' : `incomplete: ${formatNumber(run.missing)} missing`, run.complete ? 'yes' : 'no', run.complete ? 'good' : 'bad'),
    kpi('passes', formatNumber(run.passes)),
    kpi('pages fetched', formatNumber(run.pages_fetched)),
    kpi('retries', formatNumber(run.retries)),
    kpi('rejects', formatNumber(run.rejects), run.rejects > 0 ? 'bad' : ''),
    kpi('duration', minutes),
  ];
  const rows = [
    ['source', run.source_url],
    ['started, finished (UTC)', `${run.started_at} → ${run.finished_at}`],
    ['expected, received, missing', `${formatNumber(run.expected)}, ${formatNumber(run.received)}, ${formatNumber(run.missing)}`],
    ['duplicates dropped', formatNumber(run.duplicates_dropped)],
    ['completeness proof', run.completeness_proof === null ? 'not in this manifest' : JSON.stringify(run.completeness_proof)],
  ];
  const table = `<table>${rows.map(([k, v]) => `<tr><th>${escapeHtml(k!)}</th><td>${escapeHtml(v!)}</td></tr>`).join('')}</table>`;
  const endpoints = run.requests_per_endpoint;
  const requests = endpoints === null
    ? `<p class="soft">Requests per endpoint are not in this manifest; ${formatNumber(run.pages_fetched)} pages of the list were fetched.</p>`
    : figure(barChart('run-requests', 'Requests per endpoint', Object.entries(endpoints).map(([label, value]) => ({ label, value })), 'requests'), 'Requests per endpoint');
  return `${head}<div class="kpi">${kpis.join('')}</div>${table}${requests}`;
}

function growthSection(data: ReportData): string {
  const months = data.added_per_month.map((m) => ({ label: m.month, value: m.count }));
  const nulls = data.add_date_nulls > 0 ? ` ${formatNumber(data.add_date_nulls)} records have no add_date.` : '';
  const monthly = months.length === 0 ? '<p class="soft">No record has an add_date.</p>'
    : figure(columnChart('added-per-month', 'Maps added per month', months, 'month of add_date (UTC)', 'maps'), `Maps added per month.${nulls}`);
  const legend = ['true', 'false', 'null'];
  const rows = CHARTED_FLAGS.map((f) => ({ label: f, parts: [data.flags[f]!.true, data.flags[f]!.false, data.flags[f]!.null] }));
  const flags = figure(stackedChart('flags', 'Valid, thresholded and not-MNI maps', rows, legend, 'share of records'),
    'Share of valid, thresholded and not-MNI maps (the number is the share of true).');
  return `<h2>Maps over time</h2><div class="grid">${monthly}${flags}</div>`;
}

function kindsSection(data: ReportData): string {
  const charts = CHARTED_CATEGORIES.map((c) => {
    const points = data.counts[c]!.map((v) => ({ label: v.value ?? '(null)', value: v.count }));
    return figure(barChart(`counts-${c}`, `Maps by ${c}`, points, 'maps', data.records), `Maps by ${c}`);
  });
  return `<h2>What kind of maps</h2><div class="grid">${charts.join('')}</div>`;
}

function atlasSection(data: ReportData): string {
  const { paradigm, contrast } = data.cognitive_atlas;
  const rows = [
    { label: 'paradigm (task)', parts: [paradigm.named, paradigm.other, paradigm.blank] },
    { label: 'contrast', parts: [contrast.named, contrast.other, contrast.blank] },
  ];
  const chart = stackedChart('cognitive-atlas', 'Cognitive Atlas fields', rows, ['named', 'None / Other', 'blank'], 'share of records');
  const text = `Paradigm: ${formatNumber(paradigm.named)} named, ${formatNumber(paradigm.other)} "None / Other", ` +
    `${formatNumber(paradigm.blank)} blank; contrast: ${formatNumber(contrast.named)}, ${formatNumber(contrast.other)}, ` +
    `${formatNumber(contrast.blank)}.`;
  return `<h2>Cognitive Atlas</h2>${figure(chart, text)}`;
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

function distributionChart(id: string, title: string, d: Distribution, axis: string, bytes = false): string {
  const points = d.bins.map((b) => ({ label: binLabel(b, d.scale, bytes), value: b.count }));
  const range = d.count === 0 ? 'no values' : `${formatNumber(d.count)} values from ${formatNumber(d.min!)} to ${formatNumber(d.max!)}`;
  const outside = d.below + d.above > 0 ? `; ${formatNumber(d.below)} below and ${formatNumber(d.above)} above the bins` : '';
  const caption = `${title}: ${range}, ${formatNumber(d.nulls)} null${outside}.`;
  return figure(columnChart(id, title, points, axis, 'records'), caption);
}

function distributionSection(data: ReportData): string {
  const axes: Record<keyof typeof CHARTED_DISTRIBUTIONS, string> = {
    number_of_subjects: 'subjects (bins double)',
    brain_coverage: 'brain coverage, %',
    perc_bad_voxels: 'bad voxels, %',
    file_size: 'file size (bins double)',
  };
  const charts = Object.entries(axes).map(([c, axis]) =>
    distributionChart(`distribution-${c}`, c, data.distributions[c]!, axis, c === 'file_size'));
  return `<h2>Distributions</h2><div class="grid">${charts.join('')}</div>`;
}

function collectionSection(data: ReportData): string {
  const c = data.collections;
  const sizes = distributionChart('collection-sizes', 'Collections by number of maps', c.sizes, 'maps in the collection (bins double)');
  const largest = figure(
    barChart('largest-collections', 'Largest collections', c.largest.map((l) => ({ label: `collection ${l.collection_id}`, value: l.records })), 'maps', data.records),
    `The ${c.largest.length} largest of ${formatNumber(c.count)} collections (share of all maps).`,
  );
  const owners = c.owners === null
    ? `<p class="soft">Owners' share: ${escapeHtml(c.owners_note ?? '')}.</p>`
    : figure(barChart('owners', 'Largest owners', c.owners.map((o) => ({ label: o.owner, value: o.records })), 'maps', data.records),
      'The owners holding most maps, with their share of all maps.');
  return `<h2>Collections</h2><div class="grid">${sizes}${largest}</div>${owners}`;
}

function fillSection(data: ReportData): string {
  const rows = data.fill.map((f) => ({ label: f.column, parts: [f.value, f.null, f.empty, f.sentinel] }));
  const legend = ['value', 'null', 'empty → null', 'sentinel → null'];
  const fill = figure(stackedChart('fill', 'Fill of every column', rows, legend, 'share of records'),
    'Every column: values, nulls as served, empty strings and sentinels turned into null (the number is the share of values).');
  const keys = data.extra_keys.map((k) => ({ label: k.value ?? '', value: k.count }));
  const extra = keys.length === 0 ? '<p class="soft">No record has keys beyond the schema (extra is null everywhere).</p>'
    : figure(barChart('extra-keys', 'Keys in extra', keys, 'records', data.records),
      `Keys of extra by the records holding them: the ${keys.length} most frequent of ${formatNumber(data.extra_key_count)}.`);
  return `<h2>Fill</h2>${fill}${extra}`;
}

function changeSection(data: ReportData): string {
  const parts = ['<h2>Since the last snapshot</h2>'];
  const drift = data.drift;
  if (drift === null) parts.push(`<p class="soft">${escapeHtml(data.drift_note ?? 'No older snapshot to compare with.')}</p>`);
  else {
    const total = drift.added + drift.removed + drift.changed + drift.unchanged;
    const counts = [
      { label: 'added', value: drift.added },
      { label: 'removed', value: drift.removed },
      { label: 'changed', value: drift.changed },
      { label: 'unchanged', value: drift.unchanged },
    ];
    const changes = figure(barChart('drift', 'Records since the last snapshot', counts, 'records', total),
      `Against ${drift.against}: ${formatNumber(drift.added)} added, ${formatNumber(drift.removed)} removed, ` +
        `${formatNumber(drift.changed)} changed (${formatShare(drift.changed, total)}).`);
    const fields = drift.fields.length === 0 ? '<p class="soft">No field changed.</p>'
      : figure(barChart('drift-fields', 'Fields that changed most', drift.fields.map((f) => ({ label: f.field, value: f.count })), 'changed records', drift.changed),
        'Changed records per field (share of changed records).');
    parts.push(`<div class="grid">${changes}${fields}</div>`);
  }
  if (data.history.length > 0) {
    const points = data.history.map((h) => ({ label: h.snapshot, value: h.records }));
    const first = data.history[0]!;
    const last = data.history.at(-1)!;
    const delta = last.records - first.records;
    parts.push(figure(lineChart('history', 'Records per snapshot', points, 'snapshot (UTC start time)', 'records'),
      `Records in each of the ${data.history.length} snapshots found: ${delta >= 0 ? '+' : ''}${formatNumber(delta)} since ${first.snapshot}.`));
  }
  return parts.join('');
}
