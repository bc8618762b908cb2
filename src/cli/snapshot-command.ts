import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { publishLatest, pruneSnapshots } from '../run/snapshot-folders.js';
import type { ArgumentsCamelCase, CommandModule } from 'yargs';
import { runSnapshot, STAGING_DIR, type SnapshotOptions, type SnapshotResult } from '../run/run-snapshot.js';
import type { ParquetEngine } from '../load/to-parquet.js';
import { EXIT } from './exit-codes.js';
import { Progress } from './progress.js';
import { SNAPSHOT_OPTIONS, parseFormats, positiveInt, positiveSeconds } from './snapshot-options.js';
import { formatSummary } from './summary.js';
import { UsageError } from './usage-error.js';

type SnapshotArgs = ArgumentsCamelCase<{
  to: string[];
  baseUrl: string;
  out: string;
  concurrency: number;
  pageSize: number;
  parquetEngine: string;
  maxAttempts: number;
  retryDelay: number;
  timeout: number;
  neutraliseFormulas: boolean;
  maxPasses: number;
  maxMissing: number;
  fresh: boolean;
  snapshot: boolean;
  keep?: number;
  quiet?: boolean;
}>;

/** Turns parsed snapshot arguments into run options, failing with a one-line message on a bad value. */
export function snapshotOptionsFrom(args: SnapshotArgs): SnapshotOptions {
  let baseUrl: URL;
  try {
    baseUrl = new URL(args.baseUrl);
  } catch {
    throw new UsageError(`--base-url: not a URL: ${JSON.stringify(args.baseUrl)}`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') throw new UsageError(`--base-url: expected an http or https URL, got ${JSON.stringify(args.baseUrl)}`);
  return {
    baseUrl: baseUrl.href,
    outDir: args.out,
    formats: parseFormats(args.to),
    concurrency: positiveInt('concurrency', args.concurrency, 64),
    pageSize: positiveInt('page-size', args.pageSize, 1000),
    parquetEngine: args.parquetEngine as ParquetEngine,
    retry: { attempts: positiveInt('max-attempts', args.maxAttempts, 100), baseDelayMs: positiveSeconds('retry-delay', args.retryDelay) * 1000 },
    http: { headersTimeoutMs: positiveSeconds('timeout', args.timeout) * 1000, bodyTimeoutMs: args.timeout * 1000 },
    neutraliseFormulas: args.neutraliseFormulas,
    maxPasses: positiveInt('max-passes', args.maxPasses, 100),
    fresh: args.fresh,
    snapshot: args.snapshot,
  };
}

/** How the command line runs a snapshot, beyond the run's own options. */
export interface SnapshotCommandOptions {
  /** No progress on stderr. */
  quiet?: boolean;
  /** Records that may be missing before the exit code says incomplete; default 0. */
  maxMissing?: number;
  /** With a snapshot run: snapshots to keep after a successful run; default all. */
  keep?: number;
}

/**
 * Runs one snapshot with progress on stderr and the summary on stdout, stopping cleanly on Ctrl-C (or SIGTERM)
 * with word on how to resume; resolves to the exit code and the result (undefined when interrupted).
 */
export async function runSnapshotCommand(options: SnapshotOptions, command: SnapshotCommandOptions = {}): Promise<{ code: number; result?: SnapshotResult }> {
  const outDir = options.outDir ?? 'output';
  const progress = new Progress(process.stderr, command.quiet);
  const aborter = new AbortController();
  const onSignal = () => {
    if (aborter.signal.aborted) process.exit(EXIT.INTERRUPTED); // a second Ctrl-C: stop now
    aborter.abort();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    const result = await runSnapshot({ ...options, signal: aborter.signal, onEvent: progress.onEvent });
    progress.finish();
    const code = result.manifest.missing > (command.maxMissing ?? 0) ? EXIT.INCOMPLETE : EXIT.OK;
    let extra = '';
    if (options.snapshot === true && code === EXIT.OK) {
      await publishLatest(outDir, basename(result.dataDir));
      extra += `  latest    ${join(outDir, 'latest')} -> ${basename(result.dataDir)}\n`;
      const pruned = command.keep === undefined ? [] : await pruneSnapshots(outDir, command.keep);
      if (pruned.length > 0) extra += `  pruned    ${pruned.join(', ')}\n`;
    }
    process.stdout.write(formatSummary(result) + extra);
    return { code, result };
  } catch (err) {
    progress.finish();
    const kept = await stagedPages(outDir);
    const resume = kept > 0 ? `; ${kept} pages are kept in ${join(outDir, STAGING_DIR)}: run the same command again to resume` : '';
    if (aborter.signal.aborted) {
      process.stderr.write(`img-etl: interrupted${resume}\n`);
      return { code: EXIT.INTERRUPTED };
    }
    throw new Error(`${err instanceof Error ? err.message : String(err)}${resume}`, { cause: err });
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

async function stagedPages(outDir: string): Promise<number> {
  const journal = await readFile(join(outDir, STAGING_DIR, 'journal.ndjson'), 'utf8').catch(() => '');
  return journal.split('\n').filter((line) => line.startsWith('{"type":"page"')).length;
}

/** The default command: `img-etl [--to parquet|arrow|csv]... [--base-url URL] [--out DIR] ...`. */
export function snapshotCommand(setExitCode: (code: number) => void): CommandModule<object, SnapshotArgs> {
  return {
    command: '$0',
    describe: 'Snapshot every record of {base-url}/api/images/ into Parquet, Arrow IPC and/or CSV',
    builder: (y) =>
      y
        .options(SNAPSHOT_OPTIONS)
        .option('quiet', { type: 'boolean', default: false, describe: 'No progress output (for cron)' })
        .example('$0 --to parquet', 'Snapshot neurovault.org into output/images.parquet')
        .example('$0 --to parquet --to csv --out snap', 'Parquet and CSV into snap/')
        .example('$0 --base-url http://127.0.0.1:8000 --to arrow', 'Snapshot a local service (see `img-etl serve`)') as never,
    handler: async (args) => {
      const maxMissing = args.maxMissing;
      if (!Number.isInteger(maxMissing) || maxMissing < 0) throw new UsageError(`--max-missing: expected a whole number from 0, got ${String(maxMissing)}`);
      if (args.keep !== undefined && !(Number.isInteger(args.keep) && args.keep >= 1)) throw new UsageError(`--keep: expected a whole number from 1, got ${String(args.keep)}`);
      if (args.keep !== undefined && !args.snapshot) throw new UsageError('--keep: only with --snapshot');
      setExitCode((await runSnapshotCommand(snapshotOptionsFrom(args), { quiet: args.quiet, maxMissing, keep: args.keep })).code);
    },
  };
}
