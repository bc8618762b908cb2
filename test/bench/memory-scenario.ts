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
import { targetResult } from './target-result.js';

/** The limits: img-etl to Parquet's peak RSS at the larger size, and its growth from the smaller. */
export const MEMORY_PEAK_MB = 300;
export const MEMORY_GROWTH = 0.3;

const RUNS: RunKind[] = ['floor', 'peer-parquet', ...FORMATS];
const MB = 1e6;

/** Runs img-etl to each format, the DuckDB peer to Parquet and the floor at both sizes. */
export async function memoryScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const o = ctx.options;
  const [small, large] = o.memoryRecords;
  const fetch = fetchSettings(o, o.peerPageSize);
  const groups: RunGroup[] = [];
  let plan: ImgEtlPlan = { requested: NaN, applied: NaN };
  const serviceCpus: string[] = [];
  for (const records of [small, large]) {
    const load = { records, seed: o.seed, ...NO_COST };
    const rounds = { kinds: RUNS, cpus: [ctx.pinning?.clientCpu], repeat: o.repeat };
    const runs = await withService(load, ctx, fetch, async (s) => {
      plan = s.plan;
      serviceCpus.push(s.service.cpus);
      return measureRounds('memory', s.service, fetch, rounds, ctx.log);
    });
    groups.push(...groupRuns('memory', runs, (run) => (isImgEtl(run) ? plan.applied : fetch.clientPageSize)));
  }
  const rss = (run: RunKind, records: number): number =>
    groups.find((g) => g.run === run && g.records === records)?.maxRssBytes ?? NaN;
  const growth = (run: RunKind): number => (rss(run, large) - rss(run, small)) / rss(run, small);
  for (const g of groups) if (g.records === large) g.ratio = { value: 1 + growth(g.run), of: `RSS at ${count(small)}` };
  const parquetSmall = groups.find((g) => g.run === 'parquet' && g.records === small);
  const parquetLarge = groups.find((g) => g.run === 'parquet' && g.records === large);
  if (parquetLarge !== undefined) parquetLarge.target = 'memory-peak';
  const peakMb = rss('parquet', large) / MB;
  const rise = growth('parquet');
  const targets = [
    targetResult(
      {
        id: 'memory-peak',
        scenario: 'memory',
        description: `Memory: img-etl to parquet, peak RSS at ${count(large)} records`,
        measured: peakMb,
        shown: `${peakMb.toFixed(0)} MB`,
        limit: `≤ ${MEMORY_PEAK_MB} MB`,
        within: peakMb <= MEMORY_PEAK_MB,
      },
      [parquetLarge],
    ),
    targetResult(
      {
        id: 'memory-growth',
        scenario: 'memory',
        description: `Memory: img-etl to parquet, peak RSS growth ${count(small)} → ${count(large)} records`,
        measured: rise,
        shown: pct(rise),
        limit: `< ${MEMORY_GROWTH * 100}%`,
        within: rise < MEMORY_GROWTH,
      },
      [parquetSmall, parquetLarge],
    ),
  ];
  const growths = RUNS.map((run) => `${run} ${pct(growth(run))}`).join(', ');
  const notes = [
    ...pinNotes(ctx, serviceCpus.join(' and ')),
    `peak RSS growth ${count(small)} → ${count(large)}: ${growths}`,
  ];
  return {
    name: 'memory',
    load: { records: large, seed: o.seed, ...NO_COST },
    fetch: fetchOf(fetch, plan),
    groups,
    targets,
    notes,
    details: { sizes: [small, large], growth: Object.fromEntries(RUNS.map((run) => [run, growth(run)])) },
  };
}
