/** The runs of one kind, pinned or not, at one size, with the medians over repeats. */
import type { ScenarioName } from './bench-options.js';
import type { RunKind, RunResult } from './bench-runs.js';

/** The repeats of one run kind with one pin setting at one size, and their medians. */
export interface RunGroup {
  scenario: ScenarioName;
  run: RunKind;
  /** The client ran on a core of its own, apart from the service. */
  pinned: boolean;
  records: number;
  /** Records per page the client asked for (img-etl: what the service applied). */
  pageSize: number;
  /** Every repeat, in order. */
  runs: RunResult[];
  /** Medians over the repeats. */
  wallSeconds: number;
  maxRssBytes: number;
  cpuSeconds: number;
  recordsPerSecond: number;
  /** Median size of the file written (img-etl and the peer). */
  fileBytes?: number;
  /** Every repeat was correct. */
  ok: boolean;
  /** The scenario's ratio for this run, e.g. wall time over the peer's. */
  ratio?: { value: number; of: string };
  /** Id of the target this row is checked against. */
  target?: string;
  /** The service the runs were made against, when a scenario has more than one, e.g. `without collection endpoints`. */
  service?: string;
}

/** Groups runs by kind and pin setting, in the order they first ran; `pageSize` gives each kind's page size. */
export function groupRuns(scenario: ScenarioName, runs: RunResult[], pageSize: (run: RunKind) => number): RunGroup[] {
  const keys = [...new Set(runs.map((r) => `${r.run} ${r.cpu !== undefined}`))];
  return keys.map((key) => {
    const members = runs.filter((r) => `${r.run} ${r.cpu !== undefined}` === key);
    const first = members[0] as RunResult;
    const wallSeconds = median(members.map((r) => r.wallSeconds));
    const files = members.flatMap((r) => (r.fileBytes === undefined ? [] : [r.fileBytes]));
    return {
      scenario,
      run: first.run,
      pinned: first.cpu !== undefined,
      records: first.records,
      pageSize: pageSize(first.run),
      runs: members,
      wallSeconds,
      maxRssBytes: median(members.map((r) => r.maxRssBytes)),
      cpuSeconds: median(members.map((r) => r.cpuSeconds)),
      recordsPerSecond: first.records / wallSeconds,
      fileBytes: files.length === 0 ? undefined : median(files),
      ok: members.every((r) => r.problems.length === 0),
    };
  });
}

/** The median (the mean of the middle two for an even count); NaN for none. */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const middle = sorted[mid] as number;
  return sorted.length % 2 === 1 ? middle : ((sorted[mid - 1] as number) + middle) / 2;
}
