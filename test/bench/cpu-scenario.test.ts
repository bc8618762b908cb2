import { describe, expect, it } from 'vitest';
import { CPU_SERVICES, cpuTargets } from './cpu-scenario.js';
import { groupRuns } from './run-group.js';
import { benchRun } from '../helpers/bench-run.js';

describe('the CPU-bound targets', () => {
  it('compare img-etl with the pinned DuckDB peer to the same format: Parquet ≤ 1.40x, CSV ≤ 1.40x', () => {
    const runs = [
      ...[10, 6, 8].map((s) => benchRun('peer-parquet', s)),
      ...[7, 6, 6.5].map((s) => benchRun('peer-csv', s)),
      ...[11.2, 11.1, 11.4].map((s) => benchRun('parquet', s)),
      ...[9.2, 9.1, 9.3].map((s) => benchRun('csv', s)),
      benchRun('peer-parquet', 4, { pinned: false }),
      benchRun('peer-csv', 4, { pinned: false }),
      benchRun('parquet', 12, { pinned: false }),
      benchRun('csv', 2, { pinned: false }),
    ];
    const groups = groupRuns('cpu', runs, () => 100);
    const targets = cpuTargets(groups, true, 1000);
    // Medians: Parquet peer 8, CSV peer 6.5; Parquet 11.2 (1.40x, within), CSV 9.2 (1.42x the CSV peer, over; it
    // would be 1.15x the Parquet peer's).
    expect(targets.map((t) => [t.id, t.shown, t.limit, t.pass])).toEqual([
      ['cpu-parquet', '1.40x', '≤ 1.40x', true],
      ['cpu-csv', '1.42x', '≤ 1.40x', false],
    ]);
    expect(targets.map((t) => t.description)).toEqual([
      'CPU-bound, 1,000 records, pinned, service with collection endpoints: img-etl to parquet / DuckDB peer to ' +
        'parquet, wall time',
      'CPU-bound, 1,000 records, pinned, service with collection endpoints: img-etl to csv / DuckDB peer to csv, ' +
        'wall time',
    ]);
    const row = (run: string, pinned: boolean) => groups.find((g) => g.run === run && g.pinned === pinned);
    expect(row('csv', true)?.ratio).toEqual({ value: 9.2 / 6.5, of: 'csv peer' });
    expect(row('peer-csv', true)?.ratio).toEqual({ value: 6.5 / 8, of: 'parquet peer' });
    // The unpinned runs are information: compared with the unpinned peer of their format, never a target.
    expect(row('parquet', false)?.ratio).toEqual({ value: 3, of: 'parquet peer' });
    expect(row('csv', false)?.ratio).toEqual({ value: 0.5, of: 'csv peer' });
    expect(row('parquet', false)?.target).toBeUndefined();
    expect(row('csv', false)?.target).toBeUndefined();
  });

  it('fail when a run behind them is wrong or missing, however fast', () => {
    const rejects = ['manifest: 3 rejects'];
    const peers = [benchRun('peer-parquet', 10), benchRun('peer-csv', 10)];
    const wrong = [...peers, benchRun('parquet', 1, { problems: rejects }), benchRun('csv', 1)];
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
    // The Parquet peer alone judges no CSV run: without the CSV peer the CSV target did not happen.
    const noCsvPeer = groupRuns('cpu', [benchRun('peer-parquet', 10), benchRun('csv', 1)], () => 100);
    expect(cpuTargets(noCsvPeer, true, 1000).map((t) => [t.id, t.shown, t.pass])).toEqual([
      ['cpu-parquet', 'n/a', false],
      ['cpu-csv', 'n/a', false],
    ]);
  });

  it('are judged again on a service without the collection endpoints, as targets of their own', () => {
    const without = CPU_SERVICES.find((s) => !s.collectionEndpoints);
    expect(CPU_SERVICES.map((s) => [s.collectionEndpoints, s.listOrder])).toEqual([
      [true, 'id'],
      [false, 'id'],
      [true, 'real'],
      [false, 'real'],
    ]);
    // Both peers and img-etl to both judged formats run against each service.
    for (const s of CPU_SERVICES)
      expect(s.kinds).toEqual(expect.arrayContaining(['peer-parquet', 'peer-csv', 'parquet', 'csv']));
    const runs = ['peer-parquet', 'peer-csv', 'parquet', 'csv'].map((k) => benchRun(k as 'csv', 5));
    const groups = groupRuns('cpu', runs, () => 100);
    const targets = cpuTargets(groups, true, 200_000, without);
    expect(targets.map((t) => [t.id, t.shown, t.pass])).toEqual([
      ['cpu-parquet-no-collections', '1.00x', true],
      ['cpu-csv-no-collections', '1.00x', true],
    ]);
    expect(targets[1]?.description).toBe(
      'CPU-bound, 200,000 records, pinned, service without collection endpoints: img-etl to csv / DuckDB peer to ' +
        'csv, wall time',
    );
    expect(groups.find((g) => g.run === 'csv')?.target).toBe('cpu-csv-no-collections');
  });

  it('are judged again on each service with the list in the real order, as targets of their own', () => {
    const real = CPU_SERVICES.filter((s) => s.listOrder === 'real');
    expect(real.map((s) => [s.idSuffix, s.label])).toEqual([
      ['-real-order', 'with collection endpoints, list in real order'],
      ['-no-collections-real-order', 'without collection endpoints, list in real order'],
    ]);
    const runs = ['peer-parquet', 'peer-csv', 'parquet', 'csv'].map((k) => benchRun(k as 'csv', 5));
    const targets = cpuTargets(
      groupRuns('cpu', runs, () => 100),
      true,
      200_000,
      real[1],
    );
    expect(targets.map((t) => t.id)).toEqual([
      'cpu-parquet-no-collections-real-order',
      'cpu-csv-no-collections-real-order',
    ]);
    expect(targets[0]?.description).toBe(
      'CPU-bound, 200,000 records, pinned, service without collection endpoints, list in real order: img-etl to ' +
        'parquet / DuckDB peer to parquet, wall time',
    );
  });
});
