/**
 * The report page's first section: what the run did, as a few lines and a table of what its completeness proof says
 * (the proof itself is in report.json and the manifest), and its requests per endpoint.
 */
import { factTable, figure, kpi } from './html-parts.js';
import { counted, proofInWords } from './proof-in-words.js';
import type { ReportData, RunFacts } from './report-data.js';
import { barChart, escapeHtml, formatNumber } from './svg-charts.js';

/** The run section of `data`'s page. */
export function runSection(data: ReportData): string {
  const head = '<section id="run"><h2>The run</h2>';
  const run = data.run;
  if (run === null) {
    const kpis = `<div class="kpi">${kpi('records', formatNumber(data.records))}${collectionsKpi(data)}</div>`;
    return `${head}${kpis}<p class="soft">No manifest beside the data file: the run is not known.</p></section>`;
  }
  const kpis = [
    kpi('records', formatNumber(data.records)),
    collectionsKpi(data),
    kpi(
      run.complete ? 'complete' : `incomplete: ${formatNumber(run.missing)} missing`,
      run.complete ? 'yes' : 'no',
      run.complete ? 'good' : 'bad',
    ),
    kpi('duration', duration(run.duration_seconds)),
  ];
  const proof = factTable(proofInWords(run.completeness_proof, run.passes));
  const note = '<p class="soft">The proof in full is <code>completeness</code> in report.json and manifest.json.</p>';
  const lines = runLines(data.records, run);
  return `${head}<div class="kpi">${kpis.join('')}</div>${lines}${proof}${note}${requestsFigure(run)}</section>`;
}

/** The collections the records belong to, and those the collections table lists when the page knows. */
function collectionsKpi(data: ReportData): string {
  const { count, listed } = data.collections;
  const label = listed === null ? 'collections with maps' : `collections with maps, ${formatNumber(listed)} listed`;
  return kpi(label, formatNumber(count));
}

function duration(seconds: number): string {
  return seconds >= 120 ? `${(seconds / 60).toFixed(1)} min` : `${seconds.toFixed(1)} s`;
}

/** The run in a few sentences: where from, when, how many pages and passes, what went wrong. */
function runLines(records: number, run: RunFacts): string {
  const [day, from] = run.started_at.split('T');
  const to = run.finished_at.split('T')[1] ?? run.finished_at;
  const time = (t: string | undefined) => (t ?? '').replace(/\.\d+Z$|Z$/, '');
  const when = `on ${day ?? ''} from ${time(from)} to ${time(to)} UTC (${duration(run.duration_seconds)})`;
  const url = `<code>${escapeHtml(run.source_url)}</code>`;
  const read =
    `${counted(records, 'record', 'records')} read from ${url} ${escapeHtml(when)}, ` +
    `in ${counted(run.pages_fetched, 'page', 'pages')} and ${counted(run.passes, 'pass', 'passes')} over the list.`;
  const trouble =
    `${counted(run.retries, 'request', 'requests')} retried, ${counted(run.rejects, 'record', 'records')} rejected, ` +
    `${counted(run.duplicates_dropped, 'duplicate', 'duplicates')} dropped; ` +
    (run.complete
      ? `complete: ${formatNumber(run.received)} of the ${formatNumber(run.expected)} records the service counted.`
      : `incomplete: ${counted(run.missing, 'record', 'records')} missing.`);
  return `<p>${read}</p><p>${escapeHtml(trouble)}</p>`;
}

/** The run's requests per endpoint as a bar chart, or a line saying the manifest does not have them. */
function requestsFigure(run: RunFacts): string {
  const endpoints = run.requests_per_endpoint;
  const fetched = `${counted(run.pages_fetched, 'page', 'pages')} of the list fetched`;
  if (endpoints === null) return `<p class="soft">Requests per endpoint are not in this manifest; ${fetched}.</p>`;
  const points = Object.entries(endpoints).map(([label, value]) => ({ label, value }));
  const title = 'Requests per endpoint';
  return figure(title, barChart('run-requests', title, points, 'requests'), `${fetched}.`);
}
