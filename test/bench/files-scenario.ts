/**
 * The image files (`img-etl files`): the service caps every file connection at R bytes per second, and
 * img-etl fetches N files at --concurrency C. The least time that can take is (total bytes) / (C × R) plus one round
 * trip per file; the target is 1.10x of it, measured on the run's own duration (the summary's `duration_seconds`,
 * from reading the snapshot to files.parquet written; the process's start-up is reported apart, as wall time).
 * Peak RSS of the same runs has its own target, and so has that of one 1 GB file (big-file-run.ts). Every run is
 * checked: all N files ok, files.parquet says so.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { NODE_FLAGS } from 'img-etl';
import { BenchService, type LoadModel } from './bench-service.js';
import { BIG_FILE_BYTES, bigFileRuns } from './big-file-run.js';
import type { BenchContext } from './measure-rounds.js';
import { measureNode, type Measurement } from './measure.js';
import { median } from './run-group.js';
import { NO_COST, pinNotes, type ScenarioResult } from './scenario-result.js';
import { sqlString } from './sql-string.js';
import { targetResult } from './target-result.js';

/** The limits: the run's duration over the bound, and its peak RSS. */
export const FILES_TIME_RATIO = 1.1;
export const FILES_PEAK_MB = 150;

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RECORDS = 5_000;
/** Files of 50 kB to 1 MB: many files, so that the last one running alone costs little of the whole. */
const SIZES = [50_000, 1_000_000];

/** One measured run. */
interface FilesRun {
  measurement: Measurement;
  /** The run's own duration, from its summary. */
  durationSeconds: number;
  problems: string[];
}

/** Measures `img-etl files` against a rate-capped service. */
export async function filesScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const o = ctx.options;
  const load: LoadModel = { records: RECORDS, seed: o.seed, ...NO_COST, fileBytesPerSecond: o.filesRate };
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-bench-files-'));
  const service = await BenchService.start(load, ctx.pinning?.serviceCpu);
  try {
    const snap = join(dir, 'snap');
    await runQuiet([CLI, '--base-url', service.url, '--out', snap, '--quiet']);
    const chosen = await chooseFiles(join(snap, 'images.parquet'), o.filesCount);
    const total = chosen.reduce((n, f) => n + f.size, 0);
    const rtt = await roundTripSeconds(chosen[0]!.url);
    const bound = total / (o.concurrency * o.filesRate) + chosen.length * rtt;
    ctx.log(
      `files: ${chosen.length} files, ${mb(total)} MB, ${o.concurrency} × ${o.filesRate} B/s, ` +
        `bound ${bound.toFixed(2)}`,
    );
    const runs: FilesRun[] = [];
    for (let k = 0; k < o.repeat; k++) {
      const out = join(dir, `files-${k}`);
      const args = ['files', snap, '--out', out, '--where', `id in (${chosen.map((f) => f.id).join(', ')})`];
      const measurement = await measureNode(
        CLI,
        [...args, '--concurrency', String(o.concurrency), '--quiet', '--summary', 'json'],
        o.rusage,
        ctx.pinning?.clientCpu,
        NODE_FLAGS, // as the img-etl program runs (main.ts's first line), like the snapshot runs
      );
      runs.push(await check(measurement, out, chosen.length));
      ctx.log(
        `files: run ${k + 1}: ${runs.at(-1)!.durationSeconds.toFixed(2)} s, wall ${measurement.wallSeconds.toFixed(2)}`,
      );
      await rm(out, { recursive: true, force: true });
    }
    const big = await bigFileRuns(ctx, CLI);
    const bigPeakMb = median(big.map((r) => r.measurement.maxRssBytes)) / 1e6;
    const bigGroup = { run: 'files', records: 1, runs: big.map((r) => ({ problems: r.problems })) } as never;
    const duration = median(runs.map((r) => r.durationSeconds));
    const wall = median(runs.map((r) => r.measurement.wallSeconds));
    const peakMb = median(runs.map((r) => r.measurement.maxRssBytes)) / 1e6;
    const cpu = median(runs.map((r) => r.measurement.cpuSeconds));
    const group = { run: 'files', records: chosen.length, runs: runs.map((r) => ({ problems: r.problems })) } as never;
    const ratio = duration / bound;
    const targets = [
      targetResult(
        {
          id: 'files-time',
          scenario: 'files',
          description:
            `Files: ${chosen.length} files at ${o.concurrency} × ${mb(o.filesRate)} MB/s per connection: ` +
            'run time / (bytes / (C × R) + a round trip per file)',
          measured: ratio,
          shown: `${ratio.toFixed(3)}x (${duration.toFixed(2)} s / ${bound.toFixed(2)} s)`,
          limit: `≤ ${FILES_TIME_RATIO.toFixed(2)}x`,
          within: ratio <= FILES_TIME_RATIO,
        },
        [group],
      ),
      targetResult(
        {
          id: 'files-memory',
          scenario: 'files',
          description: `Files: peak RSS of the same runs (files of ${SIZES[0]! / 1e3} kB to ${SIZES[1]! / 1e6} MB)`,
          measured: peakMb,
          shown: `${peakMb.toFixed(0)} MB`,
          limit: `≤ ${FILES_PEAK_MB} MB`,
          within: peakMb <= FILES_PEAK_MB,
        },
        [group],
      ),
      targetResult(
        {
          id: 'files-big-memory',
          scenario: 'files',
          description: `Files: peak RSS of one ${BIG_FILE_BYTES / 1e9} GB file, unthrottled`,
          measured: bigPeakMb,
          shown: `${bigPeakMb.toFixed(0)} MB`,
          limit: `≤ ${FILES_PEAK_MB} MB`,
          within: bigPeakMb <= FILES_PEAK_MB,
        },
        [bigGroup],
      ),
    ];
    const notes = [
      ...pinNotes(ctx, service.cpus),
      `${chosen.length} files, ${mb(total)} MB; a round trip ${(rtt * 1000).toFixed(2)} ms; ` +
        `wall time with start-up ${wall.toFixed(2)} s (${(wall / bound).toFixed(3)}x); CPU ${cpu.toFixed(2)} s; ` +
        `peak RSS ${peakMb.toFixed(0)} MB`,
    ];
    return {
      name: 'files',
      load,
      groups: [],
      targets,
      notes,
      details: {
        files: chosen.length,
        bytes: total,
        rttSeconds: rtt,
        boundSeconds: bound,
        durationSeconds: duration,
        wallSeconds: wall,
        peakRssMb: peakMb,
        bigFilePeakRssMb: bigPeakMb,
      },
    };
  } finally {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first `count` images by id with a file of a size in SIZES, read from the snapshot by DuckDB. */
async function chooseFiles(parquet: string, count: number): Promise<{ id: number; size: number; url: string }[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const sql = `SELECT id::DOUBLE AS id, file_size::DOUBLE AS size, file AS url
      FROM read_parquet(${sqlString(parquet)})
      WHERE file_size BETWEEN ${SIZES[0]} AND ${SIZES[1]} ORDER BY id LIMIT ${count}`;
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS() as { id: number; size: number; url: string }[];
    if (rows.length < count)
      throw new Error(
        `bench: files: the snapshot holds ${rows.length} files of the sizes wanted, ${count} were asked for`,
      );
    return rows;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The median time of a HEAD request for a file over a kept-alive connection: one round trip. */
async function roundTripSeconds(url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    const response = await fetch(url, { method: 'HEAD' });
    await response.arrayBuffer();
    if (i > 0) times.push((performance.now() - started) / 1000);
  }
  return median(times);
}

/**
 * The run's duration from its JSON summary, and what is wrong with it: not every file ok, or files.parquet says
 * otherwise.
 */
async function check(measurement: Measurement, out: string, files: number): Promise<FilesRun> {
  const problems: string[] = [];
  let durationSeconds = NaN;
  if (measurement.exitCode !== 0)
    problems.push(`exit code ${measurement.exitCode}: ${measurement.stderr.trim().split('\n').at(-1) ?? ''}`);
  try {
    const summary = JSON.parse(measurement.stdout) as {
      complete: boolean;
      counts: { ok: number };
      duration_seconds: number;
    };
    durationSeconds = summary.duration_seconds;
    if (!summary.complete || summary.counts.ok !== files)
      problems.push(`the summary says ${summary.counts.ok} of ${files} files ok`);
  } catch {
    problems.push('no JSON summary on stdout');
  }
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const table = sqlString(join(out, 'files.parquet'));
    const sql = `SELECT count(*)::DOUBLE AS ok FROM read_parquet(${table}) WHERE status = 'ok'`;
    const ok = Number((await connection.runAndReadAll(sql)).getRowObjectsJS()[0]?.['ok']);
    if (ok !== files) problems.push(`files.parquet has ${ok} ok rows, ${files} expected`);
  } catch (err) {
    problems.push(`files.parquet does not read: ${(err as Error).message}`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { measurement, durationSeconds, problems };
}

/** Megabytes (10^6 bytes), one decimal. */
function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

function runQuiet(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`bench: ${args.slice(1).join(' ')} exited ${code}`)),
    );
  });
}
