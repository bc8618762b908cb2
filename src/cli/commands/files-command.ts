/**
 * The `img-etl files` command: its options and their checks, the dry run's plan, and the download of a snapshot's
 * files.
 */
import type { CommandIo } from '../command-io.js';
import type { ArgumentsCamelCase, CommandModule, InferredOptionTypes } from 'yargs';
import type { FetchFilesOptions, FilesPlan, FilesResult } from '../../files/fetch-files.js';
import type { HttpClientOptions } from '../../extract/paging/http-client.js';
import type { FilesEvent } from '../../files/files-events.js';
import { FILE_STATUSES } from '../../files/file-status.js';
import { EXTRA_LINKS, type ExtraLinkGroup } from '../../files/extra-links.js';
import { EXIT } from '../exit-codes.js';
import { withConfig } from '../options/config-file.js';
import { FilesJsonLog } from '../printing/files-json-log.js';
import { FilesProgress } from '../printing/files-progress.js';
import { counted, formatBytes, formatDuration, thousands } from '../printing/human-numbers.js';
import { interruptSignal } from '../interrupt-signal.js';
import type { Reporter } from '../printing/reporter.js';
import { reportingErrors } from './snapshot-command.js';
import { outputChoicesFrom, parseChoices, parseFormats, type OutputChoices } from '../options/snapshot-options.js';
import { FILES_OPTIONS } from '../options/option-table.js';
import { checkOptions } from '../options/option-spec.js';
import { UsageError } from '../usage-error.js';
import { baseUrlOption } from '../options/base-url-option.js';

/** Parsed arguments of `img-etl files`: what yargs makes of FILES_OPTIONS and the snapshot. */
type FilesArgs = ArgumentsCamelCase<InferredOptionTypes<typeof FILES_OPTIONS> & { snapshot: string }>;

/**
 * `img-etl files <snapshot> --out DIR`: fetches the image files a snapshot selects, verified, and writes files.parquet.
 */
export function filesCommand(io: CommandIo): CommandModule<object, FilesArgs> {
  return {
    command: 'files <snapshot>',
    describe:
      'Fetch the image files a snapshot selects (--where), concurrently, resumably and verified, ' +
      'into {out}/<collection_id>/',
    builder: (y) =>
      withConfig(y, FILES_OPTIONS, '{"out": "maps", "concurrency": 4}')
        .positional('snapshot', {
          type: 'string',
          describe: 'A snapshot folder, a --snapshot base folder (its latest), or an images.parquet/.arrow file',
        })
        .options(FILES_OPTIONS)
        .example(
          `$0 files snapshots/latest --out maps --where "map_type = 'T map'" --where "number_of_subjects >= 20"`,
          'T maps of 20 subjects or more',
        )
        .example(
          `$0 files output --out maps --where "collection_id in (1056, 1058)" --dry-run`,
          'How much two collections hold',
        ) as never,
    handler: async (args) => {
      const output = outputChoicesFrom(args);
      await reportingErrors(output.logFormat, io, () => runFiles(args, output, io));
    },
  };
}

/** Runs `img-etl files` with checked output choices; sets the exit code. */
async function runFiles(args: FilesArgs, output: OutputChoices, io: CommandIo): Promise<void> {
  const run = await checkedRun(args, output, io);
  if (output.dryRun) {
    await printPlan(run, args.baseUrl !== undefined);
    io.setExitCode(EXIT.OK);
    return;
  }
  await fetchSelection(run, args, io);
}

/**
 * A files run's checked command line (what selects the files, the folder, the files table's formats, the client's
 * settings, the summary's format, where the plan or summary goes) and the reporter of its events.
 */
type FilesRun = Awaited<ReturnType<typeof checkedRun>>;

/** Checks the command line (a usage error for a bad value) and makes the reporter `--log-format` asks for. */
async function checkedRun(args: FilesArgs, output: OutputChoices, io: CommandIo) {
  const summary = output.summary;
  // The listing's token for the same service; the other IMG_ETL_* variables are a snapshot's options, not these.
  const token = args.token ?? process.env['IMG_ETL_TOKEN'];
  checkOptions({ ...args, token }, FILES_OPTIONS);
  const { out, concurrency } = args;
  const formats = parseFormats(args.to);
  const groups = parseChoices('with', args.with, Object.keys(EXTRA_LINKS) as ExtraLinkGroup[], 'link');
  const http = { headersTimeoutMs: args.timeout * 1000, bodyTimeoutMs: args.timeout * 1000 };
  const { parseWhere } = await import('../../files/where-condition.js');
  const where = args.where.map((text) => parseWhere(text));
  if (args.layout === 'nilearn' && groups.length > 0)
    throw new UsageError('files: --with has no place in --layout nilearn, which holds only the maps');
  const selection = {
    snapshot: args.snapshot,
    where,
    with: groups,
    layout: args.layout,
    wholeCollections: args.wholeCollections,
    ...(args.baseUrl === undefined ? {} : { baseUrl: baseUrlOption(args.baseUrl).href }),
  };
  const progress: Reporter<FilesEvent> =
    output.logFormat === 'json'
      ? new FilesJsonLog(io.stderr, output.quiet)
      : new FilesProgress(io.stderr, output.quiet, output.progressIntervalMs);
  return { selection, out, formats, concurrency, token, http, summary, progress, stdout: io.stdout };
}

/** `--dry-run`: prints the selection's files and bytes and an estimated time, the token withheld as a run would. */
async function printPlan(run: FilesRun, baseUrlGiven: boolean): Promise<void> {
  const { planFiles } = await import('../../files/fetch-files.js');
  const { tokenGoesTo } = await import('../../files/token-host.js');
  const { token, concurrency } = run;
  const plan = await planFiles({ ...run.selection, onEvent: run.progress.onEvent });
  const sendToken = token !== undefined && tokenGoesTo(plan.baseUrl, baseUrlGiven);
  if (token !== undefined && !sendToken) run.progress.onEvent({ type: 'token-withheld', baseUrl: plan.baseUrl });
  const estimate = await estimateSeconds(plan, concurrency, sendToken ? { ...run.http, token } : run.http);
  run.stdout.write(
    run.summary === 'json'
      ? `${JSON.stringify(planDocument(plan, concurrency, estimate), null, 2)}\n`
      : formatPlan(plan, concurrency, estimate),
  );
}

/**
 * Fetches the selection and prints the summary; sets the exit code. The first SIGINT or SIGTERM stops the run (its
 * `.part` files kept), the second exits at once.
 */
async function fetchSelection(run: FilesRun, args: FilesArgs, io: CommandIo): Promise<void> {
  const { fetchFiles } = await import('../../files/fetch-files.js');
  const { signal, release } = interruptSignal();
  try {
    const result = await fetchFiles(fetchOptions(run, args, signal));
    run.progress.finish();
    run.stdout.write(
      run.summary === 'json' ? `${JSON.stringify(summaryDocument(result), null, 2)}\n` : formatSummary(result),
    );
    io.setExitCode(complete(result) ? EXIT.OK : EXIT.INCOMPLETE);
  } catch (err) {
    run.progress.finish();
    if (signal.aborted) {
      run.progress.error(
        'interrupted; partial files are kept as .part: run the same command again to resume',
        'interrupted',
      );
      io.setExitCode(EXIT.INTERRUPTED);
      return;
    }
    throw err;
  } finally {
    release();
  }
}

/** fetchFiles's options from the checked run and the retry options. */
function fetchOptions(run: FilesRun, args: FilesArgs, signal: AbortSignal): FetchFilesOptions {
  return {
    ...run.selection,
    outDir: run.out,
    formats: run.formats,
    concurrency: run.concurrency,
    verify: args.verify,
    http: run.token === undefined ? run.http : { ...run.http, token: run.token },
    retry: { attempts: args.maxAttempts, baseDelayMs: args.retryDelay * 1000 },
    signal,
    onEvent: run.progress.onEvent,
  };
}

/** Seconds the selection may take: one ranged request of up to 1 MiB measures a connection's rate and round trip. */
async function estimateSeconds(plan: FilesPlan, concurrency: number, http: HttpClientOptions): Promise<number | null> {
  if (plan.sample === undefined || plan.bytes === 0) return plan.bytes === 0 ? 0 : null;
  const { HttpClient } = await import('../../extract/paging/http-client.js');
  const client = new HttpClient(new URL(plan.baseUrl), { connections: 1, ...http });
  try {
    const began = performance.now();
    const response = await client.getFile(plan.sample, { range: 'bytes=0-1048575' });
    const firstByte = (performance.now() - began) / 1000;
    let bytes = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) bytes += chunk.length;
    const seconds = (performance.now() - began) / 1000 - firstByte;
    const rate = bytes / Math.max(seconds, 0.001);
    const fetched = plan.files - plan.missing;
    return (fetched * firstByte + plan.bytes / rate) / concurrency;
  } catch {
    return null;
  } finally {
    await client.close();
  }
}

/** `--dry-run --summary json`: the plan with every field in snake_case, as the JSON log and summaries name them. */
function planDocument(plan: FilesPlan, concurrency: number, estimate: number | null): Record<string, unknown> {
  const { baseUrl, ...rest } = plan;
  return { ...rest, base_url: baseUrl, concurrency, estimated_seconds: estimate };
}

function formatPlan(plan: FilesPlan, concurrency: number, estimate: number | null): string {
  const missing =
    plan.missing > 0 ? ` (${thousands(plan.missing)} with file_size 0: missing on the server, not fetched)` : '';
  const time =
    estimate === null
      ? 'no estimate (the sample file could not be fetched)'
      : `about ${formatDuration(estimate)} at ${concurrency} at a time`;
  const unsized =
    plan.unsized > 0
      ? `, not counting ${counted(plan.unsized, 'linked file')} of --with (the listing gives no size for them)`
      : '';
  const listed = `${thousands(plan.files)} files, ${formatBytes(plan.bytes)} listed${missing}${unsized}`;
  return `img-etl files (dry run): ${listed}; ${time}, from ${plan.baseUrl}\n`;
}

/** `--summary json`. */
function summaryDocument(result: FilesResult): Record<string, unknown> {
  return {
    complete: complete(result),
    selected: result.selected,
    counts: result.counts,
    lost: result.lost,
    fetched: result.fetched,
    kept: result.kept,
    files_table: tableDocument(result.table),
    files_tables: result.tables.map(tableDocument),
    duration_seconds: result.durationMs / 1000,
  };
}

/** A files table written, in the JSON summary. */
function tableDocument(table: FilesResult['table']): Record<string, unknown> {
  return { path: table.path, rows: table.rows, bytes: table.bytes, sha256: table.sha256 };
}

/**
 * Whether every selected file is ok but those the listing marks as lost (`file_size` 0), which no run can fetch; a 404
 * for a file the listing gives a size still makes a run incomplete.
 */
function complete(result: FilesResult): boolean {
  return result.counts.ok + result.lost === result.selected.files;
}

function formatSummary(result: FilesResult): string {
  const seconds = result.durationMs / 1000;
  const { counts, fetched, selected } = result;
  const rate = `${formatBytes(fetched.bytes / Math.max(seconds, 0.001))}/s`;
  const others = FILE_STATUSES.filter((s) => s !== 'ok').map((s) => `${s} ${thousands(counts[s])}`);
  const done = complete(result);
  const fetchedBytes = `${formatBytes(fetched.bytes)} in ${seconds.toFixed(1)} s (${rate})`;
  const okFiles = `${thousands(counts.ok)} of ${thousands(selected.files)} files ok`;
  const lost =
    result.lost > 0 ? `; ${thousands(result.lost)} lost on the server (file_size 0 in the listing), not fetched` : '';
  const lines = [
    `img-etl files: ${done ? 'complete' : 'INCOMPLETE'}: ${okFiles}${lost}`,
    `  fetched   ${thousands(fetched.files)} files, ${fetchedBytes}; ${thousands(result.kept)} kept from disk`,
    `  problems  ${others.join(', ')}${done ? '' : " (files.parquet's status and reason say which and why)"}`,
    ...result.tables.map((t) => `  table     ${t.path}  ${thousands(t.rows)} rows, ${formatBytes(t.bytes)}`),
  ];
  return `${lines.join('\n')}\n`;
}
