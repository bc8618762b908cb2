/** The four scenarios of issue 6: CPU-bound, server-bound, memory and Parquet size. */
import type { BenchOptions, ScenarioName } from './bench-options.js';
import { FORMATS, type FetchSettings, type RunKind, type RunResult, runFloor, runImgEtl } from './bench-runs.js';
import { BenchService, type LoadModel } from './bench-service.js';
import { compareWithDuckDB, type ParquetSizes } from './duckdb-size.js';

/** The runs of one kind at one size, with the medians over repeats. */
export interface RunGroup {
  scenario: ScenarioName;
  run: RunKind;
  records: number;
  pageSize: number;
  /** Every repeat, in order. */
  runs: RunResult[];
  /** Medians over the repeats. */
  wallSeconds: number;
  maxRssBytes: number;
  cpuSeconds: number;
  recordsPerSecond: number;
  /** Every repeat was correct. */
  ok: boolean;
  /** The scenario's ratio for this run, e.g. wall time over the floor's. */
  ratio?: { value: number; of: string };
  /** Id of the target this row is checked against. */
  target?: string;
}

/** One target of the issue, measured. */
export interface TargetResult {
  id: string;
  scenario: ScenarioName;
  description: string;
  measured: number;
  /** The measured value as printed. */
  shown: string;
  /** The limit as printed, e.g. `≤ 1.50x`. */
  limit: string;
  pass: boolean;
  /** Why the runs behind it are wrong, if they are (a wrong run fails its target). */
  problems: string[];
}

/** What a scenario measured. */
export interface ScenarioResult {
  name: ScenarioName;
  load: LoadModel;
  fetch: { concurrency: number; pageSize: number };
  groups: RunGroup[];
  targets: TargetResult[];
  notes: string[];
  details?: Record<string, unknown>;
}

/** Progress lines go here (stderr). */
export type Log = (line: string) => void;

const NO_COST = { workers: 0, pageLatencyMs: 0, recordLatencyMs: 0 };
const ALL_RUNS: RunKind[] = ['floor', ...FORMATS];
const MB = 1e6;

/** CPU-bound: the service adds no cost; img-etl to each format against the floor. */
export async function cpuScenario(o: BenchOptions, log: Log, onParquet?: (file: string) => Promise<void>): Promise<ScenarioResult> {
  const load = { records: o.records, seed: o.seed, ...NO_COST };
  const fetch = { concurrency: o.concurrency, pageSize: o.pageSize, rusage: o.rusage };
  const rounds = await withService(load, (service) => measureRounds('cpu', service, fetch, ALL_RUNS, o.repeat, log, onParquet));
  const groups = ALL_RUNS.map((run) => group('cpu', run, fetch.pageSize, rounds.get(run) ?? []));
  const floor = groups[0] as RunGroup;
  const targets: TargetResult[] = [];
  const limits: Partial<Record<RunKind, number>> = { parquet: 1.5, csv: 1.3 };
  for (const g of groups.slice(1)) {
    g.ratio = { value: g.wallSeconds / floor.wallSeconds, of: 'floor' };
    const limit = limits[g.run];
    if (limit === undefined) continue;
    g.target = `cpu-${g.run}`;
    targets.push(target(g.target, 'cpu', `CPU-bound, ${count(o.records)} records: img-etl to ${g.run} / floor wall time`, g.ratio.value, `${g.ratio.value.toFixed(2)}x`, `≤ ${limit.toFixed(2)}x`, g.ratio.value <= limit, [floor, g]));
  }
  return { name: 'cpu', load, fetch: { concurrency: fetch.concurrency, pageSize: fetch.pageSize }, groups, targets, notes: [] };
}

/** Server-bound: a service with few workers and a cost per page and record; img-etl against the server's own limit. */
export async function serverScenario(o: BenchOptions, log: Log): Promise<ScenarioResult> {
  const load = { records: o.serverRecords, seed: o.seed, workers: o.serverWorkers, pageLatencyMs: o.pageLatencyMs, recordLatencyMs: o.recordLatencyMs };
  const fetch = { concurrency: o.concurrency, pageSize: o.serverPageSize, rusage: o.rusage };
  const rounds = await withService(load, (service) => measureRounds('server', service, fetch, ALL_RUNS, o.repeat, log));
  const groups = ALL_RUNS.map((run) => group('server', run, fetch.pageSize, rounds.get(run) ?? []));
  const limitSeconds = (r: RunResult): number => r.serverCostMs / load.workers / 1000;
  const targets: TargetResult[] = [];
  for (const g of groups) {
    g.ratio = { value: median(g.runs.map((r) => r.wallSeconds / limitSeconds(r))), of: 'server limit' };
    if (g.run === 'floor') continue;
    g.target = `server-${g.run}`;
    targets.push(target(g.target, 'server', `Server-bound, ${count(load.records)} records, ${load.workers} workers, ${load.pageLatencyMs} ms/page + ${load.recordLatencyMs} ms/record: img-etl to ${g.run} / server limit`, g.ratio.value, `${g.ratio.value.toFixed(3)}x`, '≤ 1.150x', g.ratio.value <= 1.15, [g]));
  }
  const first = groups[1]?.runs[0] ?? groups[0]?.runs[0];
  const bound = countFirstBound(load, fetch.pageSize, fetch.concurrency);
  const notes: string[] = [];
  if (first !== undefined) {
    notes.push(
      `server limit = (${first.server.pagesServed} pages × ${load.pageLatencyMs} ms + ${first.server.recordsServed} records × ${load.recordLatencyMs} ms) / ${load.workers} workers = ${limitSeconds(first).toFixed(2)} s (from the pages the service served during the run); ` +
        `a client that reads page 0 alone before fanning out cannot finish before ${bound.toFixed(2)} s (${(bound / limitSeconds(first)).toFixed(3)}x)`,
    );
  }
  const peaks = groups.map((g) => `${g.run} ${Math.max(...g.runs.map((r) => r.server.workers.peakActive))}`).join(', ');
  notes.push(`most workers busy at once: ${peaks}`);
  return { name: 'server', load, fetch: { concurrency: fetch.concurrency, pageSize: fetch.pageSize }, groups, targets, notes, details: { countFirstBoundSeconds: bound } };
}

/** Memory: peak RSS of every run at two sizes, and how it grows. */
export async function memoryScenario(o: BenchOptions, log: Log): Promise<ScenarioResult> {
  const [small, large] = o.memoryRecords;
  const fetch = { concurrency: o.concurrency, pageSize: o.pageSize, rusage: o.rusage };
  const groups: RunGroup[] = [];
  for (const records of [small, large]) {
    const load = { records, seed: o.seed, ...NO_COST };
    const rounds = await withService(load, (service) => measureRounds('memory', service, fetch, ALL_RUNS, o.repeat, log));
    for (const run of ALL_RUNS) groups.push(group('memory', run, fetch.pageSize, rounds.get(run) ?? []));
  }
  const at = (run: RunKind, records: number): RunGroup => groups.find((g) => g.run === run && g.records === records) as RunGroup;
  const growth = (run: RunKind): number => (at(run, large).maxRssBytes - at(run, small).maxRssBytes) / at(run, small).maxRssBytes;
  for (const run of ALL_RUNS) {
    const g = at(run, large);
    g.ratio = { value: at(run, large).maxRssBytes / at(run, small).maxRssBytes, of: `RSS at ${count(small)}` };
  }
  const parquetLarge = at('parquet', large);
  parquetLarge.target = 'memory-peak';
  const peakMb = parquetLarge.maxRssBytes / MB;
  const targets = [
    target('memory-peak', 'memory', `Memory: img-etl to parquet, peak RSS at ${count(large)} records`, peakMb, `${peakMb.toFixed(0)} MB`, '≤ 300 MB', peakMb <= 300, [parquetLarge]),
    target('memory-growth', 'memory', `Memory: img-etl to parquet, peak RSS growth ${count(small)} → ${count(large)} records`, growth('parquet'), pct(growth('parquet')), '< 30%', growth('parquet') < 0.3, [at('parquet', small), parquetLarge]),
  ];
  const notes = [`peak RSS growth ${count(small)} → ${count(large)}: ${ALL_RUNS.map((run) => `${run} ${pct(growth(run))}`).join(', ')}`];
  return {
    name: 'memory',
    load: { records: large, seed: o.seed, ...NO_COST },
    fetch: { concurrency: fetch.concurrency, pageSize: fetch.pageSize },
    groups,
    targets,
    notes,
    details: { sizes: [small, large], growth: Object.fromEntries(ALL_RUNS.map((run) => [run, growth(run)])) },
  };
}

/**
 * Parquet size: img-etl's file against DuckDB's zstd copy of the same rows. Uses the CPU-bound
 * scenario's Parquet when that ran (`measured`), else makes its own run.
 */
export async function sizeScenario(o: BenchOptions, log: Log, measured?: ParquetSizes): Promise<ScenarioResult> {
  const load = { records: o.records, seed: o.seed, ...NO_COST };
  const fetch = { concurrency: o.concurrency, pageSize: o.pageSize, rusage: o.rusage };
  let sizes = measured;
  const groups: RunGroup[] = [];
  if (sizes === undefined) {
    const rounds = await withService(load, (service) =>
      measureRounds('size', service, fetch, ['parquet'], 1, log, async (file) => {
        sizes = await compareWithDuckDB(file);
      }),
    );
    groups.push(group('size', 'parquet', fetch.pageSize, rounds.get('parquet') ?? []));
  }
  const problems = groups.flatMap((g) => g.runs.flatMap((r) => r.problems));
  if (sizes === undefined) problems.push('no Parquet file to compare (the img-etl run failed)');
  else if (sizes.ourRows !== o.records || sizes.duckdbRows !== o.records) problems.push(`rows: img-etl ${sizes.ourRows}, DuckDB ${sizes.duckdbRows}, expected ${o.records}`);
  const ratio = sizes === undefined ? NaN : sizes.ourBytes / sizes.duckdbBytes;
  const shown = sizes === undefined ? 'n/a' : `${ratio.toFixed(3)}x (${(sizes.ourBytes / MB).toFixed(2)} MB / ${(sizes.duckdbBytes / MB).toFixed(2)} MB)`;
  const targets = [{ id: 'size', scenario: 'size' as const, description: `Parquet size, ${count(o.records)} records: img-etl / DuckDB COPY (FORMAT parquet, COMPRESSION zstd)`, measured: ratio, shown, limit: '≤ 1.25x', pass: problems.length === 0 && ratio <= 1.25, problems }];
  const source = measured === undefined ? 'its own img-etl run' : 'the CPU-bound scenario’s Parquet file';
  return { name: 'size', load, fetch: { concurrency: fetch.concurrency, pageSize: fetch.pageSize }, groups, targets, notes: [`Parquet compared: ${source}`], details: { sizes } };
}

async function withService<T>(load: LoadModel, use: (service: BenchService) => Promise<T>): Promise<T> {
  const service = await BenchService.start(load);
  try {
    if (service.count !== load.records) throw new Error(`bench: the service lists ${service.count} records, ${load.records} were asked for`);
    return await use(service);
  } finally {
    await service.close();
  }
}

/** Warms the service (not the measured clients), then runs every kind once per round, `repeat` rounds. */
async function measureRounds(
  scenario: ScenarioName,
  service: BenchService,
  fetch: FetchSettings,
  kinds: RunKind[],
  repeat: number,
  log: Log,
  onParquet?: (file: string) => Promise<void>,
): Promise<Map<RunKind, RunResult[]>> {
  await warmUp(service, fetch);
  const results = new Map<RunKind, RunResult[]>(kinds.map((k) => [k, []]));
  for (let round = 1; round <= repeat; round++) {
    for (const kind of kinds) {
      const inspect = kind === 'parquet' && round === repeat ? onParquet : undefined;
      const result = kind === 'floor' ? await runFloor(service, fetch) : await runImgEtl(service, kind, fetch, inspect);
      results.get(kind)?.push(result);
      const verdict = result.problems.length === 0 ? 'ok' : `WRONG: ${result.problems.join('; ')}`;
      log(
        `[${scenario} ${count(service.count)}] ${kind.padEnd(7)} ${round}/${repeat}: ${result.wallSeconds.toFixed(2)} s, ` +
          `${count(Math.round(service.count / result.wallSeconds))} records/s, ${(result.maxRssBytes / MB).toFixed(0)} MB peak RSS, ${result.cpuSeconds.toFixed(2)} s CPU, ${verdict}`,
      );
    }
  }
  return results;
}

/**
 * The service answers its first pages slower (its JIT is cold). The real service is warm, so a
 * few pages are fetched here, unmeasured, before the first measured run.
 */
async function warmUp(service: BenchService, fetch: FetchSettings): Promise<void> {
  const pages = Math.min(8, Math.ceil(service.count / fetch.pageSize));
  const offsets = Array.from({ length: pages }, (_, i) => i * fetch.pageSize);
  const lanes = Array.from({ length: Math.min(fetch.concurrency, pages) }, async () => {
    for (let offset = offsets.shift(); offset !== undefined; offset = offsets.shift()) {
      const response = await globalThis.fetch(`${service.url}/api/images/?limit=${fetch.pageSize}&offset=${offset}`, { headers: { accept: 'application/json' } });
      JSON.parse(await response.text());
    }
  });
  await Promise.all(lanes);
}

function group(scenario: ScenarioName, run: RunKind, pageSize: number, runs: RunResult[]): RunGroup {
  const wallSeconds = median(runs.map((r) => r.wallSeconds));
  const records = runs[0]?.records ?? 0;
  return {
    scenario,
    run,
    records,
    pageSize,
    runs,
    wallSeconds,
    maxRssBytes: median(runs.map((r) => r.maxRssBytes)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
    recordsPerSecond: records / wallSeconds,
    ok: runs.length > 0 && runs.every((r) => r.problems.length === 0),
  };
}

function target(id: string, scenario: ScenarioName, description: string, measured: number, shown: string, limit: string, within: boolean, behind: RunGroup[]): TargetResult {
  const problems = behind.flatMap((g) => g.runs.flatMap((r) => r.problems.map((p) => `${g.run} at ${count(g.records)}: ${p}`)));
  if (behind.some((g) => g.runs.length === 0)) problems.push('a run behind it did not happen');
  return { id, scenario, description, measured, shown, limit, pass: within && problems.length === 0, problems };
}

/**
 * The earliest a client can finish that reads page 0 alone (to learn `count`) and then keeps every
 * worker it may use (the service's workers, at most `concurrency`) busy with the remaining pages:
 * page 0's cost plus a greedy schedule of the rest.
 */
function countFirstBound(load: LoadModel, pageSize: number, concurrency: number): number {
  const cost = (records: number): number => load.pageLatencyMs + records * load.recordLatencyMs;
  const pages: number[] = [];
  for (let offset = pageSize; offset < load.records; offset += pageSize) pages.push(cost(Math.min(pageSize, load.records - offset)));
  const workers = new Array<number>(Math.max(1, Math.min(load.workers, concurrency))).fill(0);
  for (const page of pages) {
    const next = workers.indexOf(Math.min(...workers));
    workers[next] = (workers[next] as number) + page;
  }
  return (cost(Math.min(pageSize, load.records)) + Math.max(...workers)) / 1000;
}

/** The median (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}
