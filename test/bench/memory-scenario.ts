/** Memory: peak RSS of every run at two sizes, and how it grows. */
import { FORMATS, type ImgEtlPlan, type RunKind } from './bench-runs.js';
import { type BenchContext, measureRounds, withService } from './measure-rounds.js';
import { groupRuns, type RunGroup } from './run-group.js';
import {
  count,
  fetchOf,
  fetchSettings,
  isImgEtl,
  NO_COST,
  pct,
  pinNotes,
  type ScenarioResult,
} from './scenario-result.js';
import { type TargetResult, targetResult } from './target-result.js';

/** The limits: img-etl to Parquet's peak RSS at the larger size, and its growth from the smaller. */
export const MEMORY_PEAK_MB = 300;
export const MEMORY_GROWTH = 0.3;

const RUNS: RunKind[] = ['floor', 'peer-parquet', ...FORMATS];
const MB = 1e6;

/** The list orders the scenario runs in, and how its rows and targets name each. */
const ORDERS = [
  { listOrder: 'id', idSuffix: '', label: undefined },
  { listOrder: 'real', idSuffix: '-real-order', label: 'with collection endpoints, list in real order' },
] as const;

/** Runs img-etl to each format, the DuckDB peer to Parquet and the floor at both sizes, in both list orders. */
export async function memoryScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const o = ctx.options;
  const [small, large] = o.memoryRecords;
  const fetch = fetchSettings(o, o.peerPageSize);
  const groups: RunGroup[] = [];
  const targets: TargetResult[] = [];
  const notes: string[] = [];
  let plan: ImgEtlPlan = { requested: NaN, applied: NaN };
  const serviceCpus: string[] = [];
  const growths: Record<string, number> = {};
  for (const order of ORDERS) {
    const own: RunGroup[] = [];
    for (const records of [small, large]) {
      const load = { records, seed: o.seed, ...NO_COST, listOrder: order.listOrder };
      const rounds = { kinds: RUNS, cpus: [ctx.pinning?.clientCpu], repeat: o.repeat, label: order.label };
      const runs = await withService(load, ctx, fetch, async (s) => {
        plan = s.plan;
        serviceCpus.push(s.service.cpus);
        return measureRounds('memory', s.service, fetch, rounds, ctx.log);
      });
      own.push(...groupRuns('memory', runs, (run) => (isImgEtl(run) ? plan.applied : fetch.clientPageSize)));
    }
    for (const g of own) if (order.label !== undefined) g.service = order.label;
    groups.push(...own);
    const judged = memoryTargets(own, small, large, order);
    targets.push(...judged.targets);
    notes.push(judged.note);
    for (const [run, rise] of Object.entries(judged.growth)) growths[`${run}${order.idSuffix}`] = rise;
  }
  return {
    name: 'memory',
    load: { records: large, seed: o.seed, ...NO_COST },
    fetch: fetchOf(fetch, plan),
    groups,
    targets,
    notes: [...pinNotes(ctx, serviceCpus.join(' and ')), ...notes],
    details: { sizes: [small, large], growth: growths },
  };
}

/** The targets of one list order's runs (peak RSS at the larger size, growth from the smaller), and its note. */
function memoryTargets(
  groups: RunGroup[],
  small: number,
  large: number,
  order: (typeof ORDERS)[number],
): { targets: TargetResult[]; note: string; growth: Record<string, number> } {
  const rss = (run: RunKind, records: number): number =>
    groups.find((g) => g.run === run && g.records === records)?.maxRssBytes ?? NaN;
  const growth = (run: RunKind): number => (rss(run, large) - rss(run, small)) / rss(run, small);
  for (const g of groups) if (g.records === large) g.ratio = { value: 1 + growth(g.run), of: `RSS at ${count(small)}` };
  const parquetSmall = groups.find((g) => g.run === 'parquet' && g.records === small);
  const parquetLarge = groups.find((g) => g.run === 'parquet' && g.records === large);
  if (parquetLarge !== undefined) parquetLarge.target = `memory-peak${order.idSuffix}`;
  const peakMb = rss('parquet', large) / MB;
  const rise = growth('parquet');
  const inOrder = order.label === undefined ? '' : `, ${order.label}`;
  const targets = [
    targetResult(
      {
        id: `memory-peak${order.idSuffix}`,
        scenario: 'memory',
        description: `Memory: img-etl to parquet, peak RSS at ${count(large)} records${inOrder}`,
        measured: peakMb,
        shown: `${peakMb.toFixed(0)} MB`,
        limit: `≤ ${MEMORY_PEAK_MB} MB`,
        within: peakMb <= MEMORY_PEAK_MB,
      },
      [parquetLarge],
    ),
    targetResult(
      {
        id: `memory-growth${order.idSuffix}`,
        scenario: 'memory',
        description: `Memory: img-etl to parquet, peak RSS growth ${count(small)} → ${count(large)} records${inOrder}`,
        measured: rise,
        shown: pct(rise),
        limit: `< ${MEMORY_GROWTH * 100}%`,
        within: rise < MEMORY_GROWTH,
      },
      [parquetSmall, parquetLarge],
    ),
  ];
  const growths = RUNS.map((run) => `${run} ${pct(growth(run))}`).join(', ');
  const note = `peak RSS growth ${count(small)} → ${count(large)}${inOrder}: ${growths}`;
  return { targets, note, growth: Object.fromEntries(RUNS.map((run) => [run, growth(run)])) };
}
