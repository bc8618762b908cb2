import { describe, expect, it } from 'vitest';
import { cpuTargets } from './cpu-scenario.js';
import { groupRuns } from './run-group.js';
import { benchRun } from '../helpers/bench-run.js';

describe('the CPU-bound targets', () => {
  it('compare img-etl with the pinned DuckDB peer to Parquet: Parquet ≤ 1.00x, CSV ≤ 0.80x', () => {
    const runs = [
      ...[10, 6, 8].map((s) => benchRun('peer-parquet', s)),
      ...[8, 7.9, 9].map((s) => benchRun('parquet', s)),
      ...[6.5, 6.4, 6.6].map((s) => benchRun('csv', s)),
      benchRun('peer-parquet', 4, { pinned: false }),
      benchRun('parquet', 12, { pinned: false }),
      benchRun('csv', 2, { pinned: false }),
    ];
    const groups = groupRuns('cpu', runs, () => 100);
    const targets = cpuTargets(groups, true, 1000);
    // Medians: peer 8, Parquet 8 (1.00x, within), CSV 6.5 (0.81x, over).
    expect(targets.map((t) => [t.id, t.shown, t.limit, t.pass])).toEqual([
      ['cpu-parquet', '1.00x', '≤ 1.00x', true],
      ['cpu-csv', '0.81x', '≤ 0.80x', false],
    ]);
    // The unpinned runs are information: compared with the unpinned peer, never a target.
    const unpinnedParquet = groups.find((g) => g.run === 'parquet' && !g.pinned);
    expect(unpinnedParquet?.ratio).toEqual({ value: 3, of: 'peer' });
    expect(unpinnedParquet?.target).toBeUndefined();
  });

  it('fail when a run behind them is wrong or missing, however fast', () => {
    const rejects = ['manifest: 3 rejects'];
    const wrong = [benchRun('peer-parquet', 10), benchRun('parquet', 1, { problems: rejects }), benchRun('csv', 1)];
    expect(
      cpuTargets(
        groupRuns('cpu', wrong, () => 100),
        true,
        1000,
      ).map((t) => [t.id, t.pass, t.problems]),
    ).toEqual([
      ['cpu-parquet', false, ['parquet at 1,000: manifest: 3 rejects']],
      ['cpu-csv', true, []],
    ]);
    const noPeer = groupRuns('cpu', [benchRun('parquet', 1), benchRun('csv', 1)], () => 100);
    expect(cpuTargets(noPeer, true, 1000).map((t) => [t.shown, t.pass, t.problems])).toEqual([
      ['n/a', false, ['a run behind it did not happen']],
      ['n/a', false, ['a run behind it did not happen']],
    ]);
  });
});
