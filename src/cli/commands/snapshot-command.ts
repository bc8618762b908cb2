/**
 * The default command: a snapshot's arguments turned into run options, and the run shown with progress and a summary.
 */
import type { CliStreams, CommandIo } from '../command-io.js';
import { join } from 'node:path';
import type { ArgumentsCamelCase, CommandModule, InferredOptionTypes } from 'yargs';
import type { SnapshotOptions, SnapshotResult } from '../../run/run-snapshot.js';
import type { RunTap } from '../../run/run-tap.js';
import { EXIT, exitCodeOf } from '../exit-codes.js';
import { interruptSignal } from '../interrupt-signal.js';
import { JsonLog } from '../printing/json-log.js';
import { createReporter } from '../printing/create-reporter.js';
import { OUTPUT_OPTIONS, SNAPSHOT_OPTIONS } from '../options/option-table.js';
import { checkOptions } from '../options/option-spec.js';
import { outputChoicesFrom, parseFormats, type OutputChoices } from '../options/snapshot-options.js';
import { formatSummary, formatSummaryJson, type SummaryExtras } from '../printing/summary.js';
import { withOptionSource } from '../options/option-source.js';
import { baseUrlHint, baseUrlOption } from '../options/base-url-option.js';
import { DEFAULT_BASE_URL, DEFAULT_OUT_DIR } from '../../extract/defaults.js';
import { CheckpointError } from '../../extract/staging/checkpoint-error.js';
import { isPageEntry } from '../../extract/staging/journal.js';
import { JOURNAL, readJournal } from '../../extract/staging/staging-files.js';
import { ExtractError } from '../../extract/paging/extract-error.js';
import { LoadError } from '../../text/load-error.js';
import { withEnvAndConfig } from '../options/config-file.js';
import { loadPipeline } from '../load-pipeline.js';
import { messageOf } from '../../text/message-of.js';

/** Parsed arguments of a snapshot run: what yargs makes of SNAPSHOT_OPTIONS and OUTPUT_OPTIONS. */
export type SnapshotArgs = ArgumentsCamelCase<InferredOptionTypes<typeof SNAPSHOT_OPTIONS & typeof OUTPUT_OPTIONS>>;

/** Turns checked snapshot arguments into run options; a one-line usage error for a bad base URL or format. */
function snapshotOptionsFrom(args: SnapshotArgs): SnapshotOptions {
  return {
    baseUrl: baseUrlOption(args.baseUrl).href,
    outDir: args.out,
    formats: parseFormats(args.to),
    concurrency: args.concurrency,
    pageSize: args.pageSize,
    parquetEngine: args.parquetEngine,
    csvEngine: args.csvEngine,
    retry: { attempts: args.maxAttempts, baseDelayMs: args.retryDelay * 1000 },
    http: {
      headersTimeoutMs: args.timeout * 1000,
      bodyTimeoutMs: args.timeout * 1000,
      token: args.token,
      maxBodyBytes: Math.round(args.maxPageMb * 1024 * 1024),
    },
    neutraliseFormulas: args.neutraliseFormulas,
    maxPasses: args.maxPasses,
    fresh: args.fresh,
    maxResumeAgeMs: args.maxResumeAge * 3_600_000,
    snapshot: args.snapshot,
    full: args.full,
    fullEveryDays: args.fullEvery,
  };
}

/**
 * How the command line runs a snapshot, beyond the run's own options: its output choices (text by default), the
 * records that may be missing before the exit code says incomplete (default 0), and with a snapshot run the snapshots
 * to keep after a successful run (default all).
 */
export type SnapshotCommandOptions = Partial<OutputChoices> & { maxMissing?: number; keep?: number };

/**
 * Runs one snapshot with progress on stderr and the summary on stdout, stopping cleanly on Ctrl-C (or SIGTERM)
 * with word on how to resume; resolves to the exit code and the result (undefined when interrupted).
 */
export async function runSnapshotCommand(
  options: SnapshotOptions,
  command: SnapshotCommandOptions,
  streams: CliStreams,
): Promise<{ code: number; result?: SnapshotResult }> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const progress = createReporter(streams.stderr, { ...command, stages: (options.stages?.length ?? 0) > 0 });
  const hint = (err: unknown) => baseUrlHint(err, options.baseUrl ?? DEFAULT_BASE_URL);
  if (command.dryRun === true)
    return printPlan(options, command, progress, streams.stdout).catch((err: unknown) => {
      throw hint(err) === '' ? err : new Error(`${messageOf(err)}${hint(err)}`, { cause: err });
    });
  // loaded for a run only: other commands start without the extract and load stages, zod and csv-stringify
  const { runSnapshot, STAGING_DIR } = await import('../../run/run-snapshot.js');
  const { checkLatest } = await import('../../run/publish/snapshot-folders.js');
  const taps = await runTaps(options);
  if (options.snapshot === true) await checkLatest(outDir); // before anything is fetched
  const { signal, release } = interruptSignal();
  try {
    // latest and --keep under the run's lock: another run cannot publish, link or prune in between
    const finish = options.snapshot === true ? { maxMissing: command.maxMissing ?? 0, keep: command.keep } : undefined;
    const result = await runSnapshot({ ...options, taps, finish, signal, onEvent: progress.onEvent });
    progress.finish();
    return { code: finishRun(result, options, command, streams.stdout), result };
  } catch (err) {
    progress.finish();
    const staging = join(outDir, STAGING_DIR);
    const kept = await stagedPages(staging);
    const resume =
      kept > 0 && (signal.aborted || rerunMayHelp(err))
        ? `; ${kept} pages are kept in ${staging}: run the same command again to resume`
        : '';
    if (signal.aborted) {
      progress.error(`interrupted${resume}`, 'interrupted', { pages_kept: kept });
      return { code: EXIT.INTERRUPTED };
    }
    throw new Error(`${messageOf(err)}${hint(err)}${resume}`, { cause: err });
  } finally {
    release();
  }
}

/** The taps of a run: the options' own, then with a snapshot its report (report.html and the rest, images.index). */
async function runTaps(options: SnapshotOptions): Promise<readonly RunTap[] | undefined> {
  if (options.snapshot !== true) return options.taps;
  const { reportTap } = await import('../../report/report-tap.js'); // loaded for snapshot runs only
  return [...(options.taps ?? []), reportTap()];
}

/** `--dry-run`: reads the first page of each list and prints the plan; resolves to exit code 0. */
async function printPlan(
  options: SnapshotOptions,
  command: SnapshotCommandOptions,
  progress: ReturnType<typeof createReporter>,
  stdout: NodeJS.WriteStream,
): Promise<{ code: number }> {
  const { formatPlan, planSnapshot } = await import('./dry-run.js'); // loaded for --dry-run only
  if (options.snapshot === true) {
    // a latest the run would refuse before fetching anything is refused here too: the plan is of a run that can start
    const { checkLatest } = await import('../../run/publish/snapshot-folders.js');
    await checkLatest(options.outDir ?? DEFAULT_OUT_DIR).catch((err: unknown) => {
      progress.finish();
      throw err;
    });
  }
  const plan = await planSnapshot(options, progress).finally(() => progress.finish());
  stdout.write(command.summary === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
  return { code: EXIT.OK };
}

/**
 * After a run that published (and, with `--snapshot`, pointed `latest` at a complete snapshot and pruned old ones under
 * its lock): prints the summary; resolves to the exit code (incomplete past `--max-missing`).
 */
function finishRun(
  result: SnapshotResult,
  options: SnapshotOptions,
  command: SnapshotCommandOptions,
  stdout: NodeJS.WriteStream,
): number {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const code = result.manifest.missing > (command.maxMissing ?? 0) ? EXIT.INCOMPLETE : EXIT.OK;
  const extras: SummaryExtras = {};
  if (result.latest !== undefined) extras.latest = { link: join(outDir, 'latest'), target: result.latest };
  // An incomplete snapshot is written too (exit 3); pruning then keeps incomplete ones from piling up.
  if (result.pruned !== undefined) extras.pruned = result.pruned;
  stdout.write(command.summary === 'json' ? formatSummaryJson(result, extras) : formatSummary(result, extras));
  return code;
}

/**
 * Whether running the same command again can get past this failure: the service or network, or the disk (once there is
 * room).
 */
function rerunMayHelp(err: unknown): boolean {
  // a service error or timeout past its attempts, not a 404 or a foreign link
  if (err instanceof ExtractError) return err.retryable || err.kind === 'unknown-host'; // a host known a moment ago
  if (err instanceof LoadError) return err.code === 'LOAD_WRITE_FAILED';
  // another live run holds the staging, or it is another run's; a page changed on disk is fetched again by a rerun
  if (err instanceof CheckpointError) return err.code === 'CHANGED';
  const code = (err as NodeJS.ErrnoException | null)?.code;
  // a system error: a full disk, a file system gone read-only
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

async function stagedPages(staging: string): Promise<number> {
  return (await readJournal(join(staging, JOURNAL))).entries.filter(isPageEntry).length;
}

/**
 * Runs a command's body; with `--log-format json` an error that ends it is written as a JSON line (exit code 2 for a
 * bad command line, 1 otherwise) instead of the plain line the CLI prints.
 */
export async function reportingErrors(
  logFormat: OutputChoices['logFormat'],
  io: CommandIo,
  body: () => Promise<void>,
): Promise<void> {
  if (logFormat !== 'json') return body();
  try {
    await body();
  } catch (caught) {
    const err = io.argv === undefined ? caught : withOptionSource(caught, io.argv);
    const code = exitCodeOf(err);
    new JsonLog(io.stderr).exception(err, code);
    io.setExitCode(code);
  }
}

/**
 * Checks parsed snapshot arguments and runs the snapshot they describe (the default command and `run`); `extra` adds
 * run options such as a pipeline's stages.
 */
export async function handleSnapshotArgs(
  args: SnapshotArgs,
  io: CommandIo,
  extra: Partial<SnapshotOptions> = {},
): Promise<void> {
  const output = outputChoicesFrom(args);
  await reportingErrors(output.logFormat, io, async () => {
    checkOptions(args, { ...SNAPSHOT_OPTIONS, ...OUTPUT_OPTIONS });
    const command = { ...output, maxMissing: args.maxMissing, keep: args.keep };
    io.setExitCode((await runSnapshotCommand({ ...snapshotOptionsFrom(args), ...extra }, command, io)).code);
  });
}

/** The pipeline `img-etl` runs when no command is given. */
export const DEFAULT_PIPELINE = 'full-snapshot';

/** The default command: `img-etl [--to parquet|arrow|csv]... [--base-url URL] [--out DIR] ...`. */
export function snapshotCommand(io: CommandIo): CommandModule<object, SnapshotArgs> {
  return {
    command: '$0',
    describe: 'Snapshot every record of {base-url}/api/images/ into Parquet, Arrow IPC and/or CSV',
    builder: (y) =>
      withEnvAndConfig(y, { ...SNAPSHOT_OPTIONS, ...OUTPUT_OPTIONS })
        .options(SNAPSHOT_OPTIONS)
        .options(OUTPUT_OPTIONS)
        .example('$0 --to parquet', 'Snapshot neurovault.org into output/images.parquet')
        .example('$0 --to parquet --to csv --out snap', 'Parquet and CSV into snap/')
        .example('$0 --base-url http://127.0.0.1:8000 --to arrow', 'Snapshot a local service (see `img-etl serve`)')
        .example(
          '$0 --dry-run --to parquet,csv',
          'Read the first page of each list and print the plan: pages, estimated time and sizes',
        )
        .example(
          '$0 --quiet --summary json > run.json',
          'For cron: errors only on stderr, the summary as JSON',
        ) as never,
    handler: async (args) => {
      // The default job is a pipeline like any other (pipelines/full-snapshot.ts); --to decides the formats.
      await handleSnapshotArgs(args, io, (await loadPipeline(DEFAULT_PIPELINE)).options);
    },
  };
}
