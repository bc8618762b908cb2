/** The benchmark's tables: Markdown, aligned so they read in a terminal and paste into the README. */
import { type Machine, machineLine } from './machine.js';
import type { RunGroup, ScenarioResult, TargetResult } from './scenarios.js';

/** The runs table, the targets table, notes and the machine, as one Markdown text. */
export function renderReport(scenarios: ScenarioResult[], machine: Machine, loadAverageAtEnd: number): string {
  const runs = scenarios.flatMap((s) => s.groups.map((g) => runRow(s, g, scenarios)));
  const targets = scenarios.flatMap((s) => s.targets).map(targetRow);
  const notes = scenarios.flatMap((s) => s.notes.map((n) => `- ${s.name}: ${n}`));
  const settings = scenarios.map((s) => `${s.name}: --concurrency ${s.fetch.concurrency} --page-size ${s.fetch.pageSize}${loadText(s)}`).join('; ');
  return [
    table(['scenario', 'run', 'records', 'wall s', 'records/s', 'peak RSS MB', 'CPU s', 'ratio', 'target', 'result'], runs, [false, false, true, true, true, true, true, true, false, false]),
    '',
    table(['target', 'measured', 'limit', 'result'], targets, [false, true, false, false]),
    '',
    ...notes,
    `- settings: ${settings}`,
    `- machine: ${machineLine(machine)}; 1-minute load average ${machine.loadAverageAtStart} at the start, ${loadAverageAtEnd} at the end (the bench itself accounts for up to about 2)`,
  ].join('\n');
}

function loadText(s: ScenarioResult): string {
  const { workers, pageLatencyMs, recordLatencyMs } = s.load;
  if (workers === 0 && pageLatencyMs === 0 && recordLatencyMs === 0) return ', service without added cost';
  return `, service with ${workers} workers, ${pageLatencyMs} ms/page + ${recordLatencyMs} ms/record`;
}

function runRow(s: ScenarioResult, g: RunGroup, all: ScenarioResult[]): string[] {
  const t = g.target === undefined ? undefined : all.flatMap((x) => x.targets).find((x) => x.id === g.target);
  const run = g.run === 'floor' ? 'floor' : `img-etl → ${g.run}`;
  const ratio = g.ratio === undefined ? '' : `${g.ratio.value.toFixed(s.name === 'server' ? 3 : 2)}x ${g.ratio.of}`;
  const result = t !== undefined ? (t.pass ? 'PASS' : 'FAIL') : g.ok ? 'ok' : 'FAIL (wrong output)';
  return [
    s.name,
    run,
    g.records.toLocaleString('en-US'),
    g.wallSeconds.toFixed(2),
    Math.round(g.recordsPerSecond).toLocaleString('en-US'),
    (g.maxRssBytes / 1e6).toFixed(0),
    g.cpuSeconds.toFixed(2),
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
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (right[i] ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
