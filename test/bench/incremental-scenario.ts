/**
 * Incremental snapshots, server-bound: a `--snapshot` run built on the latest snapshot after about 1% of the
 * collections changed, against a `--full` one taken right after; what each cost the service (image records answered
 * by any endpoint) and the wall time, and whether their data files are the same bytes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_FLAGS } from 'img-etl';
import { CLI, exitProblems, type FetchSettings, measured, result, type RunResult } from './bench-runs.js';
import type { BenchService } from './bench-service.js';
import { type BenchContext, withService } from './measure-rounds.js';
import { groupRuns, median, type RunGroup } from './run-group.js';
import { count, fetchOf, fetchSettings, pinNotes, type ScenarioResult } from './scenario-result.js';
import { serverLoad } from './server-scenario.js';
import { type TargetResult, targetResult } from './target-result.js';

/** The share of the public collections changed before each incremental run. */
export const CHANGED_SHARE = 0.01;
/** The limits: an incremental run's image records served and wall time over a full run's. */
export const RECORDS_LIMIT = 0.1;
export const WALL_LIMIT = 0.25;
/** The data files an incremental snapshot must share, byte for byte, with a full one (not the manifest or report). */
const DATA_FILES = ['images.parquet', 'collections.parquet', 'images.index', 'rejects.ndjson'];

/** A first snapshot, then each round: 1% of the collections changed, an incremental and a `--full` run, compared. */
export async function incrementalScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const o = ctx.options;
  const load = serverLoad(o);
  const fetch = fetchSettings(o, o.peerPageSize);
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-bench-incremental-'));
  try {
    const measuredRuns = await withService(load, ctx, fetch, async ({ service, plan }) => {
      const rounds = await measureIncremental(service, fetch, dir, ctx);
      return { ...rounds, plan, serviceCpus: service.cpus };
    });
    const { runs, changes, plan, serviceCpus } = measuredRuns;
    const groups = groupRuns('incremental', runs, () => plan.applied);
    const targets = incrementalTargets(groups);
    const notes = [
      ...pinNotes(ctx, serviceCpus),
      `before each incremental run ${changes.map((c) => `${c.changes} of ${count(c.collections)}`).join(', ')} ` +
        'public collections changed, chosen uniformly (a record edited, deleted or inserted in each, a third of them ' +
        'each); each incremental run was followed by a --full one',
      `image records served (list pages, collections' own lists, single images), medians: ` +
        groups.map((g) => `${g.run} ${count(median(g.runs.map(imageRecords)))}`).join(', '),
    ];
    return { name: 'incremental', load, fetch: fetchOf(fetch, plan), groups, targets, notes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The unmeasured first snapshot, then `repeat` rounds of change, incremental run, full run; every run measured. */
async function measureIncremental(service: BenchService, fetch: FetchSettings, dir: string, ctx: BenchContext) {
  const cpu = ctx.pinning?.clientCpu;
  const [chain, full] = [join(dir, 'chain'), join(dir, 'full')];
  const first = await snapshotRun(service, 'full-snapshot', chain, fetch, cpu);
  if (first.problems.length > 0) throw new Error(`bench: the first snapshot failed: ${first.problems.join('; ')}`);
  const runs: RunResult[] = [];
  const changes: { changes: number; collections: number }[] = [];
  for (let round = 1; round <= ctx.options.repeat; round++) {
    changes.push(await service.change(CHANGED_SHARE, round));
    const incremental = await snapshotRun(service, 'incremental-snapshot', chain, fetch, cpu);
    const fullRun = await snapshotRun(service, 'full-snapshot', full, fetch, cpu);
    if (incremental.problems.length === 0 && fullRun.problems.length === 0)
      incremental.problems.push(...(await differingFiles(join(chain, 'latest'), join(full, 'latest'))));
    for (const run of [incremental, fullRun]) {
      const verdict = run.problems.length === 0 ? 'ok' : `WRONG: ${run.problems.join('; ')}`;
      ctx.log(
        `[incremental ${count(service.count)}] ${run.run.padEnd(20)} ${round}/${ctx.options.repeat}: ` +
          `${run.wallSeconds.toFixed(2)} s, ${count(imageRecords(run))} image records served, ` +
          `${run.server.requests} requests, ${verdict}`,
      );
    }
    runs.push(incremental, fullRun);
  }
  return { runs, changes };
}

/** One `--snapshot` run into `out` (`--full` for a full one), measured; its manifest must say the kind and complete. */
async function snapshotRun(
  service: BenchService,
  kind: 'full-snapshot' | 'incremental-snapshot',
  out: string,
  fetch: FetchSettings,
  cpu: number | undefined,
): Promise<RunResult> {
  const args = ['--base-url', service.url, '--out', out, '--snapshot', '--keep', '2', '--to', 'parquet', '--quiet'];
  args.push('--concurrency', String(fetch.concurrency), ...(kind === 'full-snapshot' ? ['--full'] : []));
  if (fetch.imgEtlPageSize !== undefined) args.push('--page-size', String(fetch.imgEtlPageSize));
  const { measurement, server } = await measured(service, CLI, args, fetch, cpu, NODE_FLAGS);
  const problems = exitProblems(measurement);
  if (problems.length === 0) problems.push(...(await manifestProblems(join(out, 'latest'), kind)));
  return result(kind, service, measurement, server, cpu, problems);
}

/** What is wrong with the latest snapshot's manifest for a run of `kind`: not complete, or another kind of run. */
async function manifestProblems(latest: string, kind: 'full-snapshot' | 'incremental-snapshot'): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(latest, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  const wanted = kind === 'full-snapshot' ? 'full' : 'incremental';
  const problems = manifest['complete'] === true ? [] : ['the snapshot is not complete'];
  if (manifest['kind'] !== wanted)
    problems.push(
      `a ${JSON.stringify(manifest['kind'])} run (${JSON.stringify(manifest['full_because'])}), not ${wanted}`,
    );
  return problems;
}

/** The data files of two snapshot folders that are not the same bytes (one missing in either counts). */
async function differingFiles(a: string, b: string): Promise<string[]> {
  const problems: string[] = [];
  for (const name of DATA_FILES) {
    const [x, y] = await Promise.all([a, b].map((d) => readFile(join(d, name)).catch(() => undefined)));
    if (x === undefined && y === undefined) continue;
    if (x === undefined || y === undefined || !x.equals(y)) problems.push(`${name} differs from the full run's`);
  }
  return problems;
}

function imageRecords(run: RunResult): number {
  return run.server.imageRecordsServed;
}

/** The two targets: the incremental runs' image records served and wall time, each over the full runs' medians. */
export function incrementalTargets(groups: RunGroup[]): TargetResult[] {
  const incremental = groups.find((g) => g.run === 'incremental-snapshot');
  const full = groups.find((g) => g.run === 'full-snapshot');
  const records = (g: RunGroup | undefined) => (g === undefined ? NaN : median(g.runs.map(imageRecords)));
  const recordsRatio = records(incremental) / records(full);
  const wallRatio = (incremental?.wallSeconds ?? NaN) / (full?.wallSeconds ?? NaN);
  if (incremental !== undefined) incremental.ratio = { value: wallRatio, of: 'full snapshot' };
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const spec = (id: string, what: string, measuredValue: number, limit: number) => ({
    id,
    scenario: 'incremental' as const,
    description: `Incremental snapshot after ${pct(CHANGED_SHARE)} of the collections changed: ${what}`,
    measured: measuredValue,
    shown: pct(measuredValue),
    limit: `≤ ${pct(limit)}`,
    within: measuredValue <= limit,
  });
  const behind = [incremental, full];
  return [
    targetResult(spec('incremental-records', 'image records served / a full run', recordsRatio, RECORDS_LIMIT), behind),
    targetResult(spec('incremental-wall', 'wall time / a full run', wallRatio, WALL_LIMIT), behind),
  ];
}
