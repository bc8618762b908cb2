import { describe, expect, it } from 'vitest';
import { incrementalTargets } from './incremental-scenario.js';
import { groupRuns } from './run-group.js';
import { benchRun } from '../helpers/bench-run.js';

const incremental = (wall: number, records: number, problems: string[] = []) =>
  benchRun('incremental-snapshot', wall, { imageRecordsServed: records, problems });
const full = (wall: number, records: number) => benchRun('full-snapshot', wall, { imageRecordsServed: records });

describe('the incremental targets', () => {
  it("judge the medians of the incremental runs' image records and wall time against the full runs'", () => {
    const runs = [
      incremental(2, 900),
      full(10, 20_000),
      incremental(3, 1_000),
      full(12, 20_000),
      incremental(9, 5_000),
    ];
    runs.push(full(11, 20_000));
    const targets = incrementalTargets(groupRuns('incremental', runs, () => 1000));
    // Medians: incremental 3 s and 1,000 records, full 11 s and 20,000 records.
    expect(targets.map((t) => [t.id, t.shown, t.limit, t.pass])).toEqual([
      ['incremental-records', '5.0%', '≤ 10.0%', true],
      ['incremental-wall', '27.3%', '≤ 25.0%', false],
    ]);
  });

  it('fail when a run behind them was wrong (its files differ from the full run’s), or did not happen', () => {
    const wrong = [incremental(1, 10, ['images.parquet differs from the full run’s']), full(10, 20_000)];
    const targets = incrementalTargets(groupRuns('incremental', wrong, () => 1000));
    expect(targets.map((t) => t.pass)).toEqual([false, false]);
    expect(targets[0]!.problems[0]).toMatch(/images\.parquet differs/);
    const none = incrementalTargets(groupRuns('incremental', [full(10, 20_000)], () => 1000));
    expect(none.map((t) => t.pass)).toEqual([false, false]);
  });
});
