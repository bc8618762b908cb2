/**
 * CPU-bound: img-etl against the DuckDB peers, each client on its own core, the service on another; on a service with
 * the collection endpoints and again on one without them.
 */
import { FORMATS, type ImgEtlPlan, type RunKind, STREAM_FORMATS } from './bench-runs.js';
import type { LoadModel } from './bench-service.js';
import { type BenchContext, measureRounds, withService } from './measure-rounds.js';
import { groupRuns, type RunGroup } from './run-group.js';
import { count, fetchOf, fetchSettings, isImgEtl, NO_COST, pinNotes, type ScenarioResult } from './scenario-result.js';
import { type TargetResult, targetResult } from './target-result.js';

/** The limits: img-etl's wall time to each format over the DuckDB peer's to the same format, both pinned. */
export const CPU_LIMITS = { parquet: 1.4, csv: 1.4 } as const;

/** The formats the targets judge, each against the DuckDB peer to the same format. */
const PEER_OF = { parquet: 'peer-parquet', csv: 'peer-csv' } as const;

/** One service of the scenario: what is run against it, and how its rows and targets are told apart. */
export interface CpuService {
  /** Added to its targets' ids (`cpu-parquet-no-collections`); empty for the service with the collection endpoints. */
  idSuffix: string;
  /** How its rows, targets and progress lines name it; undefined for the service with the collection endpoints. */
  label: string | undefined;
  collectionEndpoints: boolean;
  /** The order it lists records and collections in. */
  listOrder: 'id' | 'real';
  kinds: RunKind[];
}

/** The services of one list order: with the collection endpoints and without them. */
const IN_ID_ORDER: readonly CpuService[] = [
  {
    idSuffix: '',
    label: undefined,
    collectionEndpoints: true,
    listOrder: 'id',
    kinds: ['floor', 'peer-parquet', 'peer-csv', ...FORMATS, ...STREAM_FORMATS.map((f) => `stream-${f}` as const)],
  },
  {
    idSuffix: '-no-collections',
    label: 'without collection endpoints',
    collectionEndpoints: false,
    listOrder: 'id',
    kinds: ['peer-parquet', 'peer-csv', 'parquet', 'csv'],
  },
];

/**
 * The four services. With the collection endpoints: every run, the floor and the one-pass rows as information. Without
 * them (404 there; img-etl then proves completeness by the image list's count and writes no collections table): the
 * judged runs only, the peers (which never read collections) measured again beside img-etl on that service. Each
 * lists its records in id order, then in the real list's order (runs of ascending ids, shuffled: `listOrder: 'real'`).
 */
export const CPU_SERVICES: readonly CpuService[] = [
  ...IN_ID_ORDER,
  ...IN_ID_ORDER.map((s) => ({
    ...s,
    idSuffix: `${s.idSuffix}-real-order`,
    label: `${s.label ?? 'with collection endpoints'}, list in real order`,
    listOrder: 'real' as const,
  })),
];
const MB = 1e6;

/**
 * The service adds no cost; on each of CPU_SERVICES, its runs, pinned, and unpinned as information. `onParquet` gets
 * img-etl's Parquet file of the last round on the service with the collection endpoints.
 */
export async function cpuScenario(
  ctx: BenchContext,
  onParquet?: (file: string) => Promise<void>,
): Promise<ScenarioResult> {
  const o = ctx.options;
  const load: LoadModel = { records: o.records, seed: o.seed, ...NO_COST };
  const fetch = fetchSettings(o, o.peerPageSize);
  const clientCpu = ctx.pinning?.clientCpu;
  const cpus = clientCpu === undefined ? [undefined] : o.unpinned ? [clientCpu, undefined] : [clientCpu];
  const groups: RunGroup[] = [];
  const targets: TargetResult[] = [];
  const serviceCpus: string[] = [];
  let plan: ImgEtlPlan | undefined;
  const measure = (s: CpuService) => {
    const model = { ...load, collectionEndpoints: s.collectionEndpoints, listOrder: s.listOrder };
    return withService(model, ctx, fetch, async ({ service, plan }) => {
      const parquet = s.label === undefined ? onParquet : undefined;
      const rounds = { kinds: s.kinds, cpus, repeat: o.repeat, onParquet: parquet, label: s.label };
      return { runs: await measureRounds('cpu', service, fetch, rounds, ctx.log), plan, cpus: service.cpus };
    });
  };
  for (const s of CPU_SERVICES) {
    const measured = await measure(s);
    plan ??= measured.plan;
    serviceCpus.push(measured.cpus);
    const ours = (run: RunKind): boolean => isImgEtl(run) || run.startsWith('stream-');
    const own = groupRuns('cpu', measured.runs, (run) => (ours(run) ? measured.plan.applied : fetch.clientPageSize));
    for (const g of own) if (s.label !== undefined) g.service = s.label;
    groups.push(...own);
    targets.push(...cpuTargets(own, clientCpu !== undefined, o.records, s));
  }
  const notes = pinNotes(ctx, [...new Set(serviceCpus)].join(' and '));
  notes.push(...cpuNotes(groups, clientCpu !== undefined));
  const applied = plan as ImgEtlPlan;
  return { name: 'cpu', load, fetch: fetchOf(fetch, applied), groups, targets, notes, details: { serviceCpus } };
}

/** The notes of information: the one-pass rows, the service without collection endpoints, the Parquet files' sizes. */
function cpuNotes(groups: RunGroup[], pinned: boolean): string[] {
  const notes: string[] = [];
  const stream = groups.filter((g) => g.pinned === pinned && g.run.startsWith('stream-'));
  if (stream.length > 0) {
    const on = (g: RunGroup): string => (g.service === undefined ? '' : ` (${g.service})`);
    const cpu = stream.map((g) => `${g.run.slice('stream-'.length)}${on(g)} ${g.cpuSeconds.toFixed(2)} CPU-s`);
    notes.push(
      `information: img-etl's stages streamed in one pass (paginate → validate → writeTable: one parse, nothing ` +
        `staged, no id order, no completeness check), the least a design of these stages could cost: ${cpu.join(', ')}`,
    );
  }
  if (groups.some((g) => g.service?.startsWith('without') === true)) {
    notes.push(
      'the service without collection endpoints answers 404 at /api/collections/: img-etl proves completeness by ' +
        "the image list's count and writes no collections table; the peers, which never read collections, are " +
        'measured again on that service',
    );
  }
  const ourFile = groups.find((g) => g.run === 'parquet' && g.service === undefined)?.fileBytes;
  const peers = groups.find((g) => g.run === 'peer-parquet' && g.service === undefined)?.fileBytes;
  if (ourFile !== undefined && peers !== undefined) {
    notes.push(
      `Parquet files: img-etl ${(ourFile / MB).toFixed(2)} MB, the DuckDB peer ${(peers / MB).toFixed(2)} MB ` +
        '(with the types DuckDB infers from the NDJSON: timestamps as text, extra keys as columns)',
    );
  }
  return notes;
}

/** The peer a run's ratio is taken to: the CSV peer for img-etl's CSV runs, else the Parquet peer. */
function peerOf(run: RunKind): RunKind {
  return run === 'csv' || run === 'stream-csv' ? 'peer-csv' : 'peer-parquet';
}

/**
 * Sets each run's ratio to its DuckDB peer (peerOf) with the same pin setting, and returns the targets of one
 * service's runs: img-etl to Parquet over the Parquet peer, to CSV over the CSV peer, judged on the pinned runs
 * (`pinned`) or, when nothing could be pinned, on the unpinned ones.
 */
export function cpuTargets(
  groups: RunGroup[],
  pinned: boolean,
  records: number,
  service: Pick<CpuService, 'idSuffix' | 'label'> = { idSuffix: '', label: undefined },
): TargetResult[] {
  for (const set of [true, false]) {
    for (const g of groups) {
      const peer = groups.find((p) => p.pinned === set && p.run === peerOf(g.run));
      if (g.pinned === set && peer !== undefined && g !== peer) {
        g.ratio = { value: g.wallSeconds / peer.wallSeconds, of: `${peer.run.slice('peer-'.length)} peer` };
      }
    }
  }
  return (['parquet', 'csv'] as const).map((format) => {
    const peer = groups.find((x) => x.pinned === pinned && x.run === PEER_OF[format]);
    const g = groups.find((x) => x.pinned === pinned && x.run === format);
    const ratio = g !== undefined && peer !== undefined ? g.wallSeconds / peer.wallSeconds : NaN;
    const limit = CPU_LIMITS[format];
    const id = `cpu-${format}${service.idSuffix}`;
    if (g !== undefined) g.target = id;
    const on = service.label === undefined ? 'service with collection endpoints' : `service ${service.label}`;
    const how = `${count(records)} records, ${pinned ? 'pinned' : 'NOT pinned'}, ${on}`;
    const spec = {
      id,
      scenario: 'cpu' as const,
      description: `CPU-bound, ${how}: img-etl to ${format} / DuckDB peer to ${format}, wall time`,
      measured: ratio,
      shown: Number.isNaN(ratio) ? 'n/a' : `${ratio.toFixed(2)}x`,
      limit: `≤ ${limit.toFixed(2)}x`,
      within: ratio <= limit,
    };
    return targetResult(spec, [peer, g]);
  });
}
