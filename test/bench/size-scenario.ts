/** Parquet size: img-etl's file against DuckDB's zstd copy of the same rows. */
import { compareWithDuckDB, type ParquetSizes } from './duckdb-size.js';
import { type BenchContext, measureRounds, withService } from './measure-rounds.js';
import { groupRuns, type RunGroup } from './run-group.js';
import { count, fetchOf, fetchSettings, NO_COST, type ScenarioFetch, type ScenarioResult } from './scenario-result.js';

/** The limit: img-etl's Parquet over DuckDB's copy of it. */
export const SIZE_LIMIT = 1.25;

const MB = 1e6;

/** Uses the CPU-bound scenario's Parquet when that ran (`measured`), else makes its own run. */
export async function sizeScenario(ctx: BenchContext, measured?: ParquetSizes): Promise<ScenarioResult> {
  const o = ctx.options;
  const load = { records: o.records, seed: o.seed, ...NO_COST };
  const fetch = fetchSettings(o, o.peerPageSize);
  let sizes = measured;
  let own: { groups: RunGroup[]; fetch: ScenarioFetch } | undefined;
  if (sizes === undefined) {
    const onParquet = async (file: string): Promise<void> => void (sizes = await compareWithDuckDB(file));
    own = await withService(load, ctx, fetch, async ({ service, plan }) => {
      const rounds = { kinds: ['parquet' as const], cpus: [ctx.pinning?.clientCpu], repeat: 1, onParquet };
      const runs = await measureRounds('size', service, fetch, rounds, ctx.log);
      return { groups: groupRuns('size', runs, () => plan.applied), fetch: fetchOf(fetch, plan) };
    });
  }
  const groups = own?.groups ?? [];
  const problems = groups.flatMap((g) => g.runs.flatMap((r) => r.problems));
  if (sizes === undefined) problems.push('no Parquet file to compare (the img-etl run failed)');
  else if (sizes.ourRows !== o.records || sizes.duckdbRows !== o.records) {
    problems.push(`rows: img-etl ${sizes.ourRows}, DuckDB ${sizes.duckdbRows}, expected ${o.records}`);
  }
  const ratio = sizes === undefined ? NaN : sizes.ourBytes / sizes.duckdbBytes;
  const mb = (bytes: number): string => `${(bytes / MB).toFixed(2)} MB`;
  const duckdb = 'DuckDB COPY of the same rows (FORMAT parquet, COMPRESSION zstd)';
  const target = {
    id: 'size',
    scenario: 'size' as const,
    description: `Parquet size, ${count(o.records)} records: img-etl / ${duckdb}`,
    measured: ratio,
    shown: sizes === undefined ? 'n/a' : `${ratio.toFixed(3)}x (${mb(sizes.ourBytes)} / ${mb(sizes.duckdbBytes)})`,
    limit: `≤ ${SIZE_LIMIT.toFixed(2)}x`,
    pass: problems.length === 0 && ratio <= SIZE_LIMIT,
    problems,
  };
  const source = own === undefined ? 'the CPU-bound scenario’s Parquet file (its last round)' : 'its own img-etl run';
  const notes = [`Parquet compared: ${source}`];
  return { name: 'size', load, fetch: own?.fetch, groups, targets: [target], notes, details: { sizes } };
}
