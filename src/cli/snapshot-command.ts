import type { ArgumentsCamelCase, CommandModule } from 'yargs';
import { runSnapshot, type SnapshotOptions } from '../run/run-snapshot.js';
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
  timeout: number;
  neutraliseFormulas: boolean;
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
    retry: { attempts: positiveInt('max-attempts', args.maxAttempts, 100) },
    http: { headersTimeoutMs: positiveSeconds('timeout', args.timeout) * 1000, bodyTimeoutMs: args.timeout * 1000 },
    neutraliseFormulas: args.neutraliseFormulas,
  };
}

/** Runs one snapshot with progress on stderr and the summary on stdout; resolves to the exit code. */
export async function runSnapshotCommand(options: SnapshotOptions, quiet = false): Promise<number> {
  const progress = new Progress(process.stderr, quiet);
  const result = await runSnapshot({ ...options, onEvent: progress.onEvent }).finally(() => progress.finish());
  process.stdout.write(formatSummary(result, options.outDir ?? 'output'));
  return result.manifest.complete ? EXIT.OK : EXIT.INCOMPLETE;
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
    handler: async (args) => setExitCode(await runSnapshotCommand(snapshotOptionsFrom(args), args.quiet)),
  };
}
