/**
 * A snapshot taken as the CLI takes it, by the library's runSnapshot in the test's process: for a set-up that only
 * makes a snapshot or a staging folder for a later CLI command to read, saving a CLI's start-up (0.45 CPU-s) a run.
 */
import { fileURLToPath } from 'node:url';
import fullSnapshot from '../../pipelines/full-snapshot.js';
import { baseUrlOption } from '../../src/cli/options/base-url-option.js';
import { pipelineFileDigest } from '../../src/cli/pipeline-file-digest.js';
import { DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE } from '../../src/extract/defaults.js';
import { reportTap } from '../../src/report/report-tap.js';
import { pipelineRunOptions } from '../../src/run/pipeline-run-options.js';
import { runSnapshot, type SnapshotOptions, type SnapshotResult } from '../../src/run/run-snapshot.js';

/** The built file of the pipeline the CLI runs when no command is given, as the CLI loads it. */
const DEFAULT_PIPELINE_FILE = fileURLToPath(new URL('../../dist/pipelines/full-snapshot.js', import.meta.url));

/** What a CLI run without a command is given beyond `options`: `img-etl`'s option defaults (snapshot-options.ts). */
export interface CliLikeOptions {
  baseUrl: string;
  outDir: string;
  /** `--to`; default parquet. */
  formats?: SnapshotOptions['formats'];
  /** `--page-size`; default the CLI's. */
  pageSize?: number;
  /** `--concurrency`; default the CLI's. */
  concurrency?: number;
  /** `--snapshot`; default false. */
  snapshot?: boolean;
  /** `--full`; default false. */
  full?: boolean;
  /** `--keep`; default none. */
  keep?: number;
}

/**
 * Runs what `img-etl --base-url … --out … [--to …] [--page-size …] [--concurrency …] [--snapshot [--full] [--keep …]]`
 * runs: the default pipeline (named by its built file's digest, as the CLI names it), the CLI's defaults, and with a
 * snapshot the report and `latest` moved to it under the run's lock. Resolves or rejects as runSnapshot does.
 */
export async function runAsCli(options: CliLikeOptions): Promise<SnapshotResult> {
  const own = pipelineRunOptions(fullSnapshot, await pipelineFileDigest(DEFAULT_PIPELINE_FILE));
  const snapshot = options.snapshot === true;
  return runSnapshot({
    baseUrl: baseUrlOption(options.baseUrl).href,
    outDir: options.outDir,
    formats: options.formats ?? ['parquet'],
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    retry: { attempts: 6, baseDelayMs: 500 },
    http: { headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, maxBodyBytes: 64 * 1024 * 1024 },
    neutraliseFormulas: true,
    maxPasses: 3,
    maxResumeAgeMs: 12 * 3_600_000,
    snapshot,
    full: options.full === true,
    ...own,
    taps: snapshot ? [...own.taps, reportTap()] : own.taps,
    finish: snapshot ? { maxMissing: 0, keep: options.keep } : undefined,
  });
}
