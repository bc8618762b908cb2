/** A target, measured: the value, the limit and PASS/FAIL. */
import type { ScenarioName } from './bench-options.js';
import type { RunGroup } from './run-group.js';

/** What a target is made of; `within` says whether the measured value meets the limit. */
export interface TargetSpec {
  id: string;
  scenario: ScenarioName;
  description: string;
  measured: number;
  /** The measured value as printed. */
  shown: string;
  /** The limit as printed, e.g. `≤ 1.00x`. */
  limit: string;
  within: boolean;
}

/** One target, measured. */
export interface TargetResult extends Omit<TargetSpec, 'within'> {
  pass: boolean;
  /** Why the runs behind it are wrong, if they are (a wrong run fails its target). */
  problems: string[];
}

/**
 * The target's result: it passes when the value is within the limit and every run `behind` it happened
 * (undefined: a group that is missing) and was correct.
 */
export function targetResult(spec: TargetSpec, behind: (RunGroup | undefined)[]): TargetResult {
  const { within, ...rest } = spec;
  const groups = behind.filter((g) => g !== undefined);
  const problems = groups.flatMap((g) => {
    const where = `${g.run} at ${g.records.toLocaleString('en-US')}`;
    return g.runs.flatMap((r) => r.problems.map((p) => `${where}: ${p}`));
  });
  const missing = behind.length === 0 || groups.length < behind.length || groups.some((g) => g.runs.length === 0);
  if (missing) problems.push('a run behind it did not happen');
  return { ...rest, pass: within && !Number.isNaN(spec.measured) && problems.length === 0, problems };
}
