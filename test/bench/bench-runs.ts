/**
 * One measured run against the service: the floor client, the DuckDB peer or img-etl to one format,
 * each a fresh process (pinned to the clients' core or not), each checked for correctness (a fast wrong
 * run is a failure, not a result).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchService, ServerCounters } from './bench-service.js';
import { checkImgEtlOutput, checkPeerOutput, IMG_ETL_FILES, parseJson } from './check-output.js';
import type { PeerFormat } from './duckdb-peer-job.js';
import { type Measurement, measureNode, type RusageSource } from './measure.js';
import { NODE_FLAGS } from 'img-etl';

/** img-etl's formats, in the order they are run. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** The one-pass stream of img-etl's stages (stream-client.ts), to the formats the CPU-bound targets judge. */
export const STREAM_FORMATS = ['parquet', 'csv'] as const;

/**
 * What is run: the floor client, the DuckDB peer to Parquet or CSV, img-etl to one format, or img-etl's stages
 * streamed in one pass to Parquet or CSV (information).
 */
export type RunKind =
  | 'floor'
  | 'peer-parquet'
  | 'peer-csv'
  | (typeof FORMATS)[number]
  | `stream-${(typeof STREAM_FORMATS)[number]}`
  | SnapshotRunKind;

/** A `--snapshot` run of the incremental scenario: a full pass (`--full`), or one built on the latest snapshot. */
export type SnapshotRunKind = 'full-snapshot' | 'incremental-snapshot';

/** How every run of a scenario fetches. */
export interface FetchSettings {
  /** Pages in flight at once, every client alike. */
  concurrency: number;
  /** img-etl's `--page-size`; undefined: not passed, img-etl's default. */
  imgEtlPageSize: number | undefined;
  /** Records per page of the floor and the peer. */
  clientPageSize: number;
  /** Where to measure peak RSS and CPU time from. */
  rusage: RusageSource;
}

/** One measured run. */
export interface RunResult {
  run: RunKind;
  /** The core the client was pinned to; undefined: not pinned. */
  cpu: number | undefined;
  /** Records the service lists. */
  records: number;
  wallSeconds: number;
  maxRssBytes: number;
  cpuSeconds: number;
  exitCode: number;
  /** What the service counted during the run. */
  server: ServerCounters;
  /** Worker milliseconds the served pages cost under the load model. */
  serverCostMs: number;
  /** img-etl and the peer: the output file's size. */
  fileBytes?: number;
  /** Everything that was wrong with the run; empty when it is correct. */
  problems: string[];
}

/** What img-etl asks for by default, from its own `--dry-run`. */
export interface ImgEtlPlan {
  /** The page size img-etl asks for. */
  requested: number;
  /** The page size the service applied (it caps the limit at 1000). */
  applied: number;
}

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./floor-client.js', import.meta.url));
const PEER = fileURLToPath(new URL('./duckdb-peer.js', import.meta.url));
const STREAM = fileURLToPath(new URL('./stream-client.js', import.meta.url));

/** Runs `kind` once against the service, on core `cpu` only when given. */
export function runOnce(
  service: BenchService,
  kind: RunKind,
  settings: FetchSettings,
  cpu: number | undefined,
  inspect?: (file: string) => Promise<void>,
): Promise<RunResult> {
  if (kind === 'floor') return runFloor(service, settings, cpu);
  if (kind === 'peer-parquet') return runPeer(service, 'parquet', settings, cpu);
  if (kind === 'peer-csv') return runPeer(service, 'csv', settings, cpu);
  if (kind === 'stream-parquet') return runStream(service, 'parquet', settings, cpu);
  if (kind === 'stream-csv') return runStream(service, 'csv', settings, cpu);
  if (kind === 'full-snapshot' || kind === 'incremental-snapshot')
    throw new Error(`bench: ${kind} runs are the incremental scenario's own (incremental-scenario.ts)`);
  return runImgEtl(service, kind, settings, cpu, inspect);
}

/**
 * Asks img-etl for its plan (`--dry-run`, the first page only) with the page-size setting of the
 * measured runs: the page size it asks for and the one the service applied. Not measured.
 */
export async function planImgEtl(service: BenchService, settings: FetchSettings): Promise<ImgEtlPlan> {
  const args = [CLI, '--base-url', service.url, '--dry-run', '--summary', 'json', '--quiet', ...pageSizeArgs(settings)];
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (error, out, err) => {
      if (error === null) resolve(out);
      else reject(new Error(`bench: img-etl --dry-run failed: ${err.trim() || error.message}`));
    }),
  );
  const plan = JSON.parse(stdout) as { page_size_requested?: unknown; page_size?: unknown };
  if (typeof plan.page_size_requested !== 'number' || typeof plan.page_size !== 'number') {
    throw new Error(`bench: img-etl --dry-run gave no page size: ${stdout.slice(0, 200)}`);
  }
  return { requested: plan.page_size_requested, applied: plan.page_size };
}

/** Runs the floor client once against the service. */
async function runFloor(service: BenchService, settings: FetchSettings, cpu: number | undefined): Promise<RunResult> {
  const args = ['--base-url', service.url, ...clientArgs(settings)];
  const { measurement, server } = await measured(service, FLOOR, args, settings, cpu);
  const problems = exitProblems(measurement);
  if (problems.length === 0) checkRecordsRead(service, measurement, problems);
  return result('floor', service, measurement, server, cpu, problems);
}

/** Runs the DuckDB peer once into a fresh folder; DuckDB reads its file back: every record once. */
async function runPeer(
  service: BenchService,
  format: PeerFormat,
  settings: FetchSettings,
  cpu: number | undefined,
): Promise<RunResult> {
  const out = await mkdtemp(join(tmpdir(), `img-etl-bench-peer-${format}-`));
  try {
    const args = ['--base-url', service.url, '--out', out, '--format', format, ...clientArgs(settings)];
    const { measurement, server } = await measured(service, PEER, args, settings, cpu);
    const problems = exitProblems(measurement);
    let fileBytes: number | undefined;
    if (problems.length === 0) {
      checkRecordsRead(service, measurement, problems);
      fileBytes = await checkPeerOutput(service.count, format, join(out, `images.${format}`), problems);
    }
    return { ...result(`peer-${format}`, service, measurement, server, cpu, problems), fileBytes };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * Runs img-etl's stages streamed in one pass (stream-client.ts) once to `format`, with the program's node flags and
 * img-etl's page size, into a fresh folder; DuckDB reads the file back: every record once.
 */
async function runStream(
  service: BenchService,
  format: (typeof STREAM_FORMATS)[number],
  settings: FetchSettings,
  cpu: number | undefined,
): Promise<RunResult> {
  const out = await mkdtemp(join(tmpdir(), `img-etl-bench-stream-${format}-`));
  try {
    const args = ['--base-url', service.url, '--out', out, '--to', format];
    args.push('--concurrency', String(settings.concurrency), ...pageSizeArgs(settings));
    const { measurement, server } = await measured(service, STREAM, args, settings, cpu, NODE_FLAGS);
    const problems = exitProblems(measurement);
    let fileBytes: number | undefined;
    if (problems.length === 0) {
      checkRecordsRead(service, measurement, problems);
      fileBytes = await checkPeerOutput(service.count, format, join(out, IMG_ETL_FILES[format]), problems);
    }
    return { ...result(`stream-${format}`, service, measurement, server, cpu, problems), fileBytes };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * Runs img-etl once to `format` into a fresh folder and checks it: exit code 0, the summary and the
 * manifest complete with every record written, the file there with the size they report. Calls
 * `inspect` with the output file before the folder is removed.
 */
async function runImgEtl(
  service: BenchService,
  format: (typeof FORMATS)[number],
  settings: FetchSettings,
  cpu: number | undefined,
  inspect?: (file: string) => Promise<void>,
): Promise<RunResult> {
  const out = await mkdtemp(join(tmpdir(), `img-etl-bench-${format}-`));
  try {
    const args = ['--base-url', service.url, '--out', out, '--to', format, '--quiet', '--summary', 'json'];
    args.push('--concurrency', String(settings.concurrency), ...pageSizeArgs(settings));
    // NODE_FLAGS: as the img-etl program runs (main.ts's first line).
    const { measurement, server } = await measured(service, CLI, args, settings, cpu, NODE_FLAGS);
    const problems = exitProblems(measurement);
    const file = join(out, IMG_ETL_FILES[format]);
    let fileBytes: number | undefined;
    if (problems.length === 0) {
      const output = { count: service.count, format, out, file, stdout: measurement.stdout };
      fileBytes = await checkImgEtlOutput(output, problems);
      if (problems.length === 0 && inspect !== undefined) await inspect(file);
    }
    return { ...result(format, service, measurement, server, cpu, problems), fileBytes };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

function pageSizeArgs(settings: FetchSettings): string[] {
  return settings.imgEtlPageSize === undefined ? [] : ['--page-size', String(settings.imgEtlPageSize)];
}

/** The floor's and the peer's paging arguments. */
function clientArgs(settings: FetchSettings): string[] {
  return ['--concurrency', String(settings.concurrency), '--page-size', String(settings.clientPageSize)];
}

/** The floor and the peer print `{ records, … }`: every record the service lists must have been read. */
function checkRecordsRead(service: BenchService, measurement: Measurement, problems: string[]): void {
  const summary = parseJson(measurement.stdout, problems) as { records?: number } | undefined;
  if (summary !== undefined && summary.records !== service.count) {
    problems.push(`read ${summary.records} records, the service lists ${service.count}`);
  }
}

/** Runs `script` measured, the service's counters zeroed before it and read after it. */
export async function measured(
  service: BenchService,
  script: string,
  args: string[],
  settings: FetchSettings,
  cpu: number | undefined,
  nodeArgs: readonly string[] = [],
): Promise<{ measurement: Measurement; server: ServerCounters }> {
  await service.reset();
  const measurement = await measureNode(script, args, settings.rusage, cpu, nodeArgs);
  return { measurement, server: await service.stats() };
}

/** A run's result: the measurement, what the service counted and any status other than 200 as a problem. */
export function result(
  run: RunKind,
  service: BenchService,
  m: Measurement,
  server: ServerCounters,
  cpu: number | undefined,
  problems: string[],
): RunResult {
  // A service without the collection endpoints answers 404 there, which img-etl asks once to learn it: expected.
  const expected = service.model.collectionEndpoints === false ? ['200', '404'] : ['200'];
  const failed = Object.entries(server.byStatus).filter(([status]) => !expected.includes(status));
  if (failed.length > 0) problems.push(`the service answered ${failed.map(([s, n]) => `${n} × ${s}`).join(', ')}`);
  return {
    run,
    cpu,
    records: service.count,
    wallSeconds: m.wallSeconds,
    maxRssBytes: m.maxRssBytes,
    cpuSeconds: m.cpuSeconds,
    exitCode: m.exitCode,
    server,
    serverCostMs: service.pageCostMs(server),
    problems,
  };
}

/** A non-zero exit code as a problem, with the last lines of stderr. */
export function exitProblems(m: Measurement): string[] {
  if (m.exitCode === 0) return [];
  const stderr = m.stderr.trim().split('\n').slice(-3).join(' | ');
  return [`exit code ${m.exitCode}${stderr === '' ? '' : `: ${stderr}`}`];
}
