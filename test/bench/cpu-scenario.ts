/** CPU-bound: img-etl against the DuckDB peer, each client on its own core, the service on another. */
import { FORMATS, type RunKind, STREAM_FORMATS } from './bench-runs.js';
import { type BenchContext, measureRounds, withService } from './measure-rounds.js';
import { groupRuns, type RunGroup } from './run-group.js';
import { count, fetchOf, fetchSettings, isImgEtl, NO_COST, pinNotes, type ScenarioResult } from './scenario-result.js';
import { type TargetResult, targetResult } from './target-result.js';

/** The limits: img-etl's wall time over the DuckDB peer's to Parquet, both pinned. */
export const CPU_LIMITS = { parquet: 1.0, csv: 0.8 } as const;

const RUNS: RunKind[] = [
  'floor',
  'peer-parquet',
  'peer-csv',
  ...FORMATS,
  ...STREAM_FORMATS.map((f) => `stream-${f}` as const),
];
const MB = 1e6;

/**
 * The service adds no cost; img-etl to each format, the DuckDB peer to Parquet and CSV, the floor and img-etl's stages
 * streamed in one pass (stream-client.ts, information), pinned, and unpinned as information. `onParquet` gets
 * img-etl's Parquet file of the last round.
 */
export async function cpuScenario(
  ctx: BenchContext,
  onParquet?: (file: string) => Promise<void>,
): Promise<ScenarioResult> {
  const o = ctx.options;
  const load = { records: o.records, seed: o.seed, ...NO_COST };
  const fetch = fetchSettings(o, o.peerPageSize);
  const clientCpu = ctx.pinning?.clientCpu;
  const cpus = clientCpu === undefined ? [undefined] : o.unpinned ? [clientCpu, undefined] : [clientCpu];
  const { runs, plan, serviceCpus } = await withService(load, ctx, fetch, async ({ service, plan }) => {
    const rounds = { kinds: RUNS, cpus, repeat: o.repeat, onParquet };
    return { runs: await measureRounds('cpu', service, fetch, rounds, ctx.log), plan, serviceCpus: service.cpus };
  });
  const ours = (run: RunKind): boolean => isImgEtl(run) || run.startsWith('stream-');
  const groups = groupRuns('cpu', runs, (run) => (ours(run) ? plan.applied : fetch.clientPageSize));
  const targets = cpuTargets(groups, clientCpu !== undefined, o.records);
  const notes = pinNotes(ctx, serviceCpus);
  for (const pinned of [true, false]) {
    const csv = groups.find((g) => g.pinned === pinned && g.run === 'csv');
    const peerCsv = groups.find((g) => g.pinned === pinned && g.run === 'peer-csv');
    if (csv === undefined || peerCsv === undefined) continue;
    const ratio = (csv.wallSeconds / peerCsv.wallSeconds).toFixed(2);
    const how = pinned ? 'pinned' : 'unpinned';
    notes.push(`${how}: img-etl to csv / DuckDB peer to csv, wall time ${ratio}x (information)`);
  }
  const stream = groups.filter((g) => g.pinned === (clientCpu !== undefined) && g.run.startsWith('stream-'));
  if (stream.length > 0) {
    const cpu = stream.map((g) => `${g.run.slice('stream-'.length)} ${g.cpuSeconds.toFixed(2)} CPU-s`).join(', ');
    notes.push(
      `information: img-etl's stages streamed in one pass (paginate → validate → writeTable: one parse, nothing ` +
        `staged, no id order, no completeness check), the least a design of these stages could cost: ${cpu}`,
    );
  }
  const ourFile = groups.find((g) => g.run === 'parquet')?.fileBytes;
  const peers = groups.find((g) => g.run === 'peer-parquet')?.fileBytes;
  if (ourFile !== undefined && peers !== undefined) {
    notes.push(
      `Parquet files: img-etl ${(ourFile / MB).toFixed(2)} MB, the DuckDB peer ${(peers / MB).toFixed(2)} MB ` +
        '(with the types DuckDB infers from the NDJSON: timestamps as text, extra keys as columns)',
    );
  }
  return { name: 'cpu', load, fetch: fetchOf(fetch, plan), groups, targets, notes, details: { serviceCpus } };
}

/**
 * Sets each run's ratio to the DuckDB peer to Parquet with the same pin setting, and returns the
 * targets, judged on the pinned runs (`pinned`) or, when nothing could be pinned, on the unpinned ones.
 */
export function cpuTargets(groups: RunGroup[], pinned: boolean, records: number): TargetResult[] {
  for (const set of [true, false]) {
    const peer = groups.find((g) => g.pinned === set && g.run === 'peer-parquet');
    if (peer === undefined) continue;
    for (const g of groups) {
      if (g.pinned === set && g !== peer) g.ratio = { value: g.wallSeconds / peer.wallSeconds, of: 'peer' };
    }
  }
  const peer = groups.find((g) => g.pinned === pinned && g.run === 'peer-parquet');
  return (['parquet', 'csv'] as const).map((format) => {
    const g = groups.find((x) => x.pinned === pinned && x.run === format);
    const ratio = g !== undefined && peer !== undefined ? g.wallSeconds / peer.wallSeconds : NaN;
    const limit = CPU_LIMITS[format];
    if (g !== undefined) g.target = `cpu-${format}`;
    const how = `${count(records)} records, ${pinned ? 'pinned' : 'NOT pinned'}`;
    const spec = {
      id: `cpu-${format}`,
      scenario: 'cpu' as const,
      description: `CPU-bound, ${how}: img-etl to ${format} / DuckDB peer to parquet, wall time`,
      measured: ratio,
      shown: Number.isNaN(ratio) ? 'n/a' : `${ratio.toFixed(2)}x`,
      limit: `≤ ${limit.toFixed(2)}x`,
      within: ratio <= limit,
    };
    return targetResult(spec, [peer, g]);
  });
}
