/**
 * One measured run against the service: the floor client or img-etl to one format, each a fresh
 * process, each checked for correctness (a fast wrong run is a failure, not a result).
 */
import { access, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchService, ServerCounters } from './bench-service.js';
import { type Measurement, measureNode, type RusageSource } from './measure.js';

/** What is run: the floor client or img-etl to one format. */
export type RunKind = 'floor' | 'parquet' | 'arrow' | 'csv';

/** img-etl's formats, in the order they are run. */
export const FORMATS = ['parquet', 'arrow', 'csv'] as const;

/** How every run of a scenario fetches. */
export interface FetchSettings {
  /** Pages in flight at once. */
  concurrency: number;
  /** Records asked for per page. */
  pageSize: number;
  /** Where to measure peak RSS and CPU time from. */
  rusage: RusageSource;
}

/** One measured run. */
export interface RunResult {
  run: RunKind;
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
  /** img-etl: the output file's size. */
  fileBytes?: number;
  /** Everything that was wrong with the run; empty when it is correct. */
  problems: string[];
}

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./floor-client.js', import.meta.url));
const FILE_NAMES: Record<(typeof FORMATS)[number], string> = { parquet: 'images.parquet', arrow: 'images.arrow', csv: 'images.csv' };

/** Runs the floor client once against the service. */
export async function runFloor(service: BenchService, settings: FetchSettings): Promise<RunResult> {
  const args = ['--base-url', service.url, '--concurrency', String(settings.concurrency), '--page-size', String(settings.pageSize)];
  const { measurement, server } = await measured(service, FLOOR, args, settings);
  const problems = exitProblems(measurement);
  if (problems.length === 0) {
    const summary = parseJson(measurement.stdout, problems) as { count?: number; records?: number } | undefined;
    if (summary !== undefined && summary.records !== service.count) problems.push(`read ${summary.records} records, the service lists ${service.count}`);
  }
  return result('floor', service, measurement, server, problems);
}

/**
 * Runs img-etl once to `format` into a fresh folder and checks it: exit code 0, the summary and the
 * manifest complete with every record written, the file there with the size they report. Calls
 * `inspect` with the output file before the folder is removed.
 */
export async function runImgEtl(
  service: BenchService,
  format: (typeof FORMATS)[number],
  settings: FetchSettings,
  inspect?: (file: string) => Promise<void>,
): Promise<RunResult> {
  const out = await mkdtemp(join(tmpdir(), `img-etl-bench-${format}-`));
  try {
    const args = ['--base-url', service.url, '--out', out, '--to', format, '--concurrency', String(settings.concurrency), '--page-size', String(settings.pageSize), '--quiet', '--summary', 'json'];
    const { measurement, server } = await measured(service, CLI, args, settings);
    const problems = exitProblems(measurement);
    const file = join(out, FILE_NAMES[format]);
    let fileBytes: number | undefined;
    if (problems.length === 0) {
      fileBytes = await checkOutput(service.count, format, out, file, measurement.stdout, problems);
      if (problems.length === 0 && inspect !== undefined) await inspect(file);
    }
    return { ...result(format, service, measurement, server, problems), fileBytes };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

async function measured(service: BenchService, script: string, args: string[], settings: FetchSettings): Promise<{ measurement: Measurement; server: ServerCounters }> {
  await service.reset();
  const measurement = await measureNode(script, args, settings.rusage);
  return { measurement, server: await service.stats() };
}

function result(run: RunKind, service: BenchService, m: Measurement, server: ServerCounters, problems: string[]): RunResult {
  const failed = Object.entries(server.byStatus).filter(([status]) => status !== '200');
  if (failed.length > 0) problems.push(`the service answered ${failed.map(([s, n]) => `${n} × ${s}`).join(', ')}`);
  return {
    run,
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

function exitProblems(m: Measurement): string[] {
  if (m.exitCode === 0) return [];
  const stderr = m.stderr.trim().split('\n').slice(-3).join(' | ');
  return [`exit code ${m.exitCode}${stderr === '' ? '' : `: ${stderr}`}`];
}

function parseJson(text: string, problems: string[]): unknown {
  try {
    return JSON.parse(text);
  } catch {
    problems.push(`stdout is not one JSON document: ${JSON.stringify(text.slice(0, 200))}`);
    return undefined;
  }
}

interface SummaryJson {
  complete?: boolean;
  records?: { written?: number; missing?: number };
  files?: { name?: string; format?: string; rows?: number; bytes?: number }[];
  manifest?: string;
}

interface ManifestJson {
  complete?: boolean;
  records_written?: number;
  rejects?: number;
  files?: { name?: string; rows?: number; bytes?: number }[];
}

async function checkOutput(count: number, format: string, out: string, file: string, stdout: string, problems: string[]): Promise<number | undefined> {
  const summary = parseJson(stdout, problems) as SummaryJson | undefined;
  if (summary === undefined) return undefined;
  if (summary.complete !== true) problems.push(`summary: complete is ${summary.complete}`);
  if (summary.records?.written !== count) problems.push(`summary: ${summary.records?.written} records written, the service lists ${count}`);
  const manifest = (await readFile(join(out, 'manifest.json'), 'utf8').then((text) => parseJson(text, problems), () => undefined)) as ManifestJson | undefined;
  if (manifest === undefined) {
    problems.push('no readable manifest.json');
    return undefined;
  }
  if (manifest.complete !== true) problems.push(`manifest: complete is ${manifest.complete}`);
  if (manifest.records_written !== count) problems.push(`manifest: records_written is ${manifest.records_written}, expected ${count}`);
  if (manifest.rejects !== 0) problems.push(`manifest: ${manifest.rejects} rejects`);
  const entry = manifest.files?.find((f) => f.name === FILE_NAMES[format as keyof typeof FILE_NAMES]);
  const bytes = await stat(file).then((s) => s.size, () => undefined);
  if (bytes === undefined) problems.push(`no ${file}`);
  else if (entry === undefined) problems.push(`manifest: no entry for ${format}`);
  else {
    if (entry.rows !== count) problems.push(`manifest: ${entry.rows} rows in ${entry.name}, expected ${count}`);
    if (entry.bytes !== bytes) problems.push(`manifest: ${entry.name} is ${entry.bytes} bytes, the file ${bytes}`);
  }
  const staging = await access(join(out, '.img-etl-staging')).then(() => true, () => false);
  if (staging) problems.push('the staging folder was left behind');
  return bytes;
}
