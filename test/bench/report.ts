/** The benchmark's tables: Markdown, aligned so they read in a terminal and paste into the README. */
import { type Machine, machineLine } from './machine.js';
import type { RunGroup } from './run-group.js';
import type { ScenarioFetch, ScenarioResult } from './scenario-result.js';
import type { TargetResult } from './target-result.js';

const RUN_HEADER = [
  ...['scenario', 'run', 'pinned', 'records', 'page size', 'wall s', 'records/s', 'peak RSS MB', 'CPU s', 'file MB'],
  ...['ratio', 'target', 'result'],
];
// The numbers, from records to ratio, are right-aligned.
const RUN_RIGHT = RUN_HEADER.map((_, i) => i >= 3 && i <= 10);

/** The runs table, the targets table, notes and the machine, as one Markdown text. */
export function renderReport(
  scenarios: ScenarioResult[],
  machine: Machine,
  loadAtEnd: number,
  pinning: string,
): string {
  const runs = scenarios.flatMap((s) => s.groups.map((g) => runRow(s, g, scenarios)));
  const targets = scenarios.flatMap((s) => s.targets).map(targetRow);
  const notes = scenarios.flatMap((s) => s.notes.map((n) => `- ${s.name}: ${n}`));
  const settings = scenarios.flatMap((s) => (s.fetch === undefined ? [] : [fetchText(s, s.fetch)]));
  const load = `1-minute load average ${machine.loadAverageAtStart} at the start, ${loadAtEnd} at the end`;
  return [
    table(RUN_HEADER, runs, RUN_RIGHT),
    '',
    table(['target', 'measured', 'limit', 'result'], targets, [false, true, false, false]),
    '',
    `- pinning: ${pinning}`,
    ...notes,
    ...(settings.length === 0 ? [] : [`- settings: ${settings.join('; ')}`]),
    `- machine: ${machineLine(machine)}; ${load} (the bench itself accounts for up to about 2)`,
  ].join('\n');
}

/** How a group of runs is named in the tables: the run, and the service when its scenario has more than one. */
function groupLabel(g: RunGroup): string {
  return g.service === undefined ? runLabel(g.run) : `${runLabel(g.run)}, service ${g.service}`;
}

/** How a run is named in the tables. */
function runLabel(run: RunGroup['run']): string {
  if (run === 'floor') return 'floor';
  if (run === 'peer-parquet' || run === 'peer-csv') return `DuckDB peer → ${run.slice('peer-'.length)}`;
  if (run === 'stream-parquet' || run === 'stream-csv')
    return `img-etl's stages, one pass → ${run.slice('stream-'.length)}`;
  if (run === 'full-snapshot') return 'img-etl --snapshot --full → parquet';
  if (run === 'incremental-snapshot') return 'img-etl --snapshot, incremental → parquet';
  return `img-etl → ${run}`;
}

function fetchText(s: ScenarioResult, f: ScenarioFetch): string {
  const size = f.imgEtlPageSizeRequested;
  const ours = `img-etl page size ${size} (${f.imgEtlPageSizeFrom === 'default' ? 'its default' : '--page-size'})`;
  const applied = f.imgEtlPageSize === size ? '' : ` (the service applied ${f.imgEtlPageSize})`;
  const others = s.name === 'server' ? 'the floor as img-etl' : `floor and peer page size ${f.clientPageSize}`;
  return `${s.name}: --concurrency ${f.concurrency}, ${ours}${applied}, ${others}${loadText(s)}`;
}

function loadText(s: ScenarioResult): string {
  const { workers, pageLatencyMs, recordLatencyMs } = s.load;
  if (workers === 0 && pageLatencyMs === 0 && recordLatencyMs === 0) return ', service without added cost';
  return `, service with ${workers} workers, ${pageLatencyMs} ms/page + ${recordLatencyMs} ms/record`;
}

function runRow(s: ScenarioResult, g: RunGroup, all: ScenarioResult[]): string[] {
  const t = g.target === undefined ? undefined : all.flatMap((x) => x.targets).find((x) => x.id === g.target);
  const ratio = g.ratio === undefined ? '' : `${g.ratio.value.toFixed(s.name === 'server' ? 3 : 2)}x ${g.ratio.of}`;
  const result = t !== undefined ? (t.pass ? 'PASS' : 'FAIL') : g.ok ? 'ok' : 'FAIL (wrong output)';
  return [
    s.name,
    groupLabel(g),
    g.pinned ? 'yes' : 'no',
    g.records.toLocaleString('en-US'),
    String(g.pageSize),
    g.wallSeconds.toFixed(2),
    Math.round(g.recordsPerSecond).toLocaleString('en-US'),
    (g.maxRssBytes / 1e6).toFixed(0),
    g.cpuSeconds.toFixed(2),
    g.fileBytes === undefined ? '' : (g.fileBytes / 1e6).toFixed(2),
    ratio,
    t?.limit ?? '',
    result,
  ];
}

function targetRow(t: TargetResult): string[] {
  const result = t.pass ? 'PASS' : t.problems.length > 0 ? `FAIL (${t.problems.join('; ')})` : 'FAIL';
  return [t.description, t.shown, t.limit, result];
}

function table(header: string[], rows: string[][], right: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const pad = (c: string, i: number) => (right[i] ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number));
  const line = (cells: string[]): string => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
