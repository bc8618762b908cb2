/**
 * `npm run bench`: the benchmark. Starts the bundled service with a load model in its own process on
 * one core, runs img-etl end to end (a fresh process per format), the DuckDB peer and the floor client,
 * each on the other core, measures wall time, records per second and peak RSS, checks every run's
 * output, prints the tables with each target's PASS/FAIL and writes every measurement to
 * output/bench.json. Exit code 1 when a target fails or a run is wrong.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { type BenchOptions, parseBenchOptions, USAGE } from './bench-options.js';
import { buildStamp } from './build-stamp.js';
import { cpuScenario } from './cpu-scenario.js';
import { filesScenario } from './files-scenario.js';
import { compareWithDuckDB, type ParquetSizes } from './duckdb-size.js';
import { type Machine, describeMachine } from './machine.js';
import type { BenchContext } from './measure-rounds.js';
import { memoryScenario } from './memory-scenario.js';
import { type Pinning, type PinningPlan, planPinning } from './pinning.js';
import { renderReport } from './report.js';
import type { ScenarioResult } from './scenario-result.js';
import { serverScenario } from './server-scenario.js';
import { sizeScenario } from './size-scenario.js';
import { unstableScenario } from './unstable-scenario.js';
import { incrementalScenario } from './incremental-scenario.js';

/** What output/bench.json holds. */
export interface BenchResults {
  /** When the bench finished, ISO 8601 UTC. */
  timestamp: string;
  machine: Machine;
  /** 1-minute load average when the bench finished (compare with machine.loadAverageAtStart). */
  loadAverageAtEnd: number;
  /** dist/src was rebuilt while the bench ran: the runs measured more than one build. */
  rebuiltDuringRun: boolean;
  options: BenchOptions;
  /** The cores of the service and the clients, or why nothing was pinned. */
  pinning: Pinning | { reason: string };
  durationSeconds: number;
  scenarios: ScenarioResult[];
  allPass: boolean;
}

async function main(): Promise<number> {
  let options: BenchOptions | undefined;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const o = options;
  const machine = describeMachine();
  const stamp = buildStamp();
  const started = performance.now();
  const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);
  const rusage = o.rusage === 'time' ? '/usr/bin/time -v' : "the child's process.resourceUsage()";
  log(`scenarios ${o.scenarios.join(', ')}; peak RSS from ${rusage}; load average ${machine.loadAverageAtStart}`);
  const unpinned = { reason: "--no-pin: nothing is pinned, the service shares the clients' cores" };
  const plan: PinningPlan = o.pin ? planPinning() : unpinned;
  const cores = plan.pinning;
  const pinning =
    cores === undefined
      ? `NOT PINNED: ${plan.reason}`
      : `the service on CPU ${cores.serviceCpu}, each measured client on CPU ${cores.clientCpu} (taskset -c)`;
  log(pinning);
  if (o.repeat < 5) {
    log(`--repeat ${o.repeat}: the targets are judged on medians of 5 runs (--repeat 5); these results are indicative`);
  }
  const ctx: BenchContext = { options: o, log, pinning: plan.pinning };

  const scenarios: ScenarioResult[] = [];
  let sizes: ParquetSizes | undefined;
  const compare = async (file: string): Promise<void> => void (sizes = await compareWithDuckDB(file));
  const onParquet = o.scenarios.includes('size') ? compare : undefined;
  for (const name of o.scenarios) {
    if (name === 'cpu') scenarios.push(await cpuScenario(ctx, onParquet));
    else if (name === 'server') scenarios.push(await serverScenario(ctx));
    else if (name === 'memory') scenarios.push(await memoryScenario(ctx));
    else if (name === 'unstable') scenarios.push(await unstableScenario(ctx));
    else if (name === 'files') scenarios.push(await filesScenario(ctx));
    else if (name === 'incremental') scenarios.push(await incrementalScenario(ctx));
    else scenarios.push(await sizeScenario(ctx, sizes));
  }

  const results: BenchResults = {
    timestamp: new Date().toISOString(),
    machine,
    loadAverageAtEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    rebuiltDuringRun: buildStamp() !== stamp,
    options: o,
    pinning: plan.pinning ?? { reason: plan.reason },
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
    scenarios,
    allPass: scenarios.every((s) => s.targets.every((t) => t.pass) && s.groups.every((g) => g.ok)),
  };
  const out = resolve(o.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);

  const targets = scenarios.flatMap((s) => s.targets);
  const failed = targets.filter((t) => !t.pass).length;
  process.stdout.write(`\n${renderReport(scenarios, machine, results.loadAverageAtEnd, pinning)}\n\n`);
  if (results.rebuiltDuringRun) {
    process.stdout.write('WARNING: dist/src was rebuilt while the bench ran; its runs measured more than one build. ');
    process.stdout.write('Run it again.\n');
  }
  const verdict = `${targets.length - failed} of ${targets.length} targets PASS${failed > 0 ? `, ${failed} FAIL` : ''}`;
  process.stdout.write(`${verdict}; ${results.durationSeconds} s in all; results in ${o.out}\n`);
  return results.allPass ? 0 : 1;
}

process.exitCode = await main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
});
