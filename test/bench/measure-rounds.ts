/**
 * A scenario's measuring loop: start the service (on its own core), learn img-etl's page size, warm the
 * service, then run every kind once per round, pinned and (when asked) unpinned, `repeat` rounds.
 */
import type { BenchOptions, ScenarioName } from './bench-options.js';
import {
  type FetchSettings,
  type ImgEtlPlan,
  planImgEtl,
  type RunKind,
  type RunResult,
  runOnce,
} from './bench-runs.js';
import { BenchService, type LoadModel } from './bench-service.js';
import type { Pinning } from './pinning.js';

/** Progress lines go here (stderr). */
export type Log = (line: string) => void;

/** What every scenario is run with. */
export interface BenchContext {
  options: BenchOptions;
  log: Log;
  /** The cores of the service and the clients; undefined: nothing is pinned. */
  pinning: Pinning | undefined;
}

/** A running service with img-etl's plan against it and the cores it may run on. */
export interface ScenarioService {
  service: BenchService;
  plan: ImgEtlPlan;
}

/** What one scenario's loop runs. */
export interface RoundPlan {
  kinds: RunKind[];
  /** The clients' pin settings, each run of a round once: a core, or undefined for unpinned. */
  cpus: (number | undefined)[];
  repeat: number;
  /** Called with img-etl's Parquet file of the last round's first pin setting, before it is removed. */
  onParquet?: (file: string) => Promise<void>;
  /** Said after the scenario's name in each progress line, e.g. which service; default nothing. */
  label?: string;
}

/**
 * Starts the service for `load` on the service's core, asks img-etl for its plan, warms the service,
 * and stops it after `use`.
 */
export async function withService<T>(
  load: LoadModel,
  ctx: BenchContext,
  fetch: FetchSettings,
  use: (s: ScenarioService) => Promise<T>,
): Promise<T> {
  const service = await BenchService.start(load, ctx.pinning?.serviceCpu);
  try {
    if (service.count !== load.records) {
      throw new Error(`bench: the service lists ${service.count} records, ${load.records} were asked for`);
    }
    const plan = await planImgEtl(service, fetch);
    await warmUp(service, plan.applied, fetch.concurrency);
    return await use({ service, plan });
  } finally {
    await service.close();
  }
}

/** Runs every kind once per round with each pin setting, `repeat` rounds; every run, in order. */
export async function measureRounds(
  scenario: ScenarioName,
  service: BenchService,
  fetch: FetchSettings,
  rounds: RoundPlan,
  log: Log,
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (let round = 1; round <= rounds.repeat; round++) {
    for (const kind of rounds.kinds) {
      for (const cpu of rounds.cpus) {
        const last = kind === 'parquet' && round === rounds.repeat && cpu === rounds.cpus[0];
        const result = await runOnce(service, kind, fetch, cpu, last ? rounds.onParquet : undefined);
        results.push(result);
        const verdict = result.problems.length === 0 ? 'ok' : `WRONG: ${result.problems.join('; ')}`;
        const where = cpu === undefined ? 'unpinned' : `on CPU ${cpu}`;
        const label = rounds.label === undefined ? '' : `, ${rounds.label}`;
        log(
          `[${scenario} ${count(service.count)}${label}] ${kind.padEnd(12)} ${where} ${round}/${rounds.repeat}: ` +
            `${result.wallSeconds.toFixed(2)} s, ${count(Math.round(service.count / result.wallSeconds))} records/s, ` +
            `${(result.maxRssBytes / 1e6).toFixed(0)} MB peak RSS, ${result.cpuSeconds.toFixed(2)} s CPU, ${verdict}`,
        );
      }
    }
  }
  return results;
}

/**
 * The service answers its first pages slower (its JIT is cold). The real service is warm, so a few
 * pages are fetched here, unmeasured, before the first measured run.
 */
async function warmUp(service: BenchService, pageSize: number, concurrency: number): Promise<void> {
  const pages = Math.min(8, Math.ceil(service.count / pageSize));
  const offsets = Array.from({ length: pages }, (_, i) => i * pageSize);
  const lanes = Array.from({ length: Math.min(concurrency, pages) }, async () => {
    for (let offset = offsets.shift(); offset !== undefined; offset = offsets.shift()) {
      const url = `${service.url}/api/images/?limit=${pageSize}&offset=${offset}`;
      const response = await globalThis.fetch(url, { headers: { accept: 'application/json' } });
      JSON.parse(await response.text());
    }
  });
  await Promise.all(lanes);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
