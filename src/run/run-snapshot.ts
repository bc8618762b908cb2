import { rm, rmdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Checkpoint, type CheckpointIdentity } from '../extract/checkpoint.js';
import { checkStaging } from '../extract/check-staging.js';
import { collect, MAX_CONFLICT_IDS, type CollectOptions, type PassSummary } from '../extract/collect.js';
import { newExtractStats } from '../extract/paginate.js';
import { listUrlOf } from '../extract/page-url.js';
import { redactUrl } from '../extract/redact-url.js';
import { replayInIdOrder } from '../extract/replay-in-id-order.js';
import { fileSystemError } from '../load/file-system-error.js';
import { makeFolder } from '../load/make-folder.js';
import type { SinkResult } from '../load/sink-result.js';
import type { CsvEngine } from '../load/to-csv.js';
import type { ParquetEngine } from '../load/to-parquet.js';
import { writeJsonAtomic } from '../load/write-json-atomic.js';
import { SCHEMA_VERSION } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import type { RowStage } from '../transform/filter-rows.js';
import { emptyNormalisationCounts, normalise, type NormalisationCounts } from '../transform/normalise.js';
import type { ValidBatch } from '../transform/validate.js';
import { FILE_NAMES, type Format } from './formats.js';
import type { Manifest } from './manifest.js';
import { checkTargets, PENDING_DIR, preparePending, publishPending, recoverPending } from './publish-folder.js';
import { latestSnapshot, listSnapshots, snapshotName } from './snapshot-folders.js';
import type { RecordBatch } from 'apache-arrow';
import { TOOL } from './tool.js';
import { ReportStats } from '../report/report-stats.js';
import { writeOutputs } from './write-outputs.js';
import { DEFAULT_BASE_URL, DEFAULT_PAGE_SIZE } from '../extract/defaults.js';

/** The staging folder of a run, inside its output folder. */
export const STAGING_DIR = '.img-etl-staging';

/** A full snapshot run: where from, where to, which formats. */
export interface SnapshotOptions extends CollectOptions {
  /** Output folder; default `output`. */
  outDir?: string;
  /** Formats to write; default `['parquet']`. */
  formats?: readonly Format[];
  /** Parquet writer; default `wasm` (see README). */
  parquetEngine?: ParquetEngine;
  /** CSV writer; default `builtin` (see README). */
  csvEngine?: CsvEngine;
  /** Prefix CSV values that a spreadsheet would run as a formula with `'`; default true. */
  neutraliseFormulas?: boolean;
  /** Rows to keep for a preview of the output; default 0. */
  previewRows?: number;
  /** Discard what an unfinished earlier run left in the staging folder instead of resuming it; default false. */
  fresh?: boolean;
  /** Resume an unfinished run only if it started less than this long ago, else discard its staging; default 12 hours. */
  maxResumeAgeMs?: number;
  /** Write into a new folder `outDir/<UTC start time>/` and keep wall-clock time out of the data files (byte-identical reruns); default false. */
  snapshot?: boolean;
  /** Stages applied in order to the normalised rows before they are written (filters, derived columns); default none. */
  stages?: readonly RowStage[];
  /** Write report.html, report.json, load.sql and load.py with the data (see src/report/); default `snapshot`. */
  report?: boolean;
}

/** What a run produced. */
export interface SnapshotResult {
  /** The manifest, as written to `manifest.json`. */
  manifest: Manifest;
  /** Path of the manifest. */
  manifestPath: string;
  /** The folder the files were written to (`outDir`, or the snapshot folder inside it). */
  dataDir: string;
  /** The first rows written, up to `previewRows`. */
  preview: Row[];
}

/**
 * Runs the whole job: pages the list into the staging folder until it is complete (resuming an unfinished run),
 * writes every format from the staging folder with the records in id order, each file atomically, then the manifest,
 * and removes the staging folder.
 * An interrupted or failed run keeps the staging folder for the next attempt.
 */
export async function runSnapshot(options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const startedAt = new Date();
  const outDir = options.outDir ?? 'output';
  const formats: Format[] = [...new Set<Format>(options.formats ?? ['parquet'])];
  await makeFolder(outDir);
  const sourceUrl = redactUrl(listUrlOf(options.baseUrl ?? DEFAULT_BASE_URL).href); // as recorded: never a credential
  const identity = { source_url: sourceUrl, page_size: options.pageSize ?? DEFAULT_PAGE_SIZE, started_at: startedAt.toISOString() };
  const stagingDir = join(outDir, STAGING_DIR);
  const stagingError = (cause: unknown) =>
    fileSystemError({ stage: 'staging', action: 'write to', path: stagingDir, cause });
  await makeFolder(stagingDir, 'staging');
  const checkpoint = await Checkpoint.open(stagingDir, identity, { fresh: options.fresh, maxAgeMs: options.maxResumeAgeMs }).catch((cause: unknown) => {
    throw stagingError(cause);
  });
  try {
    if (checkpoint.pagesKept > 0) await discardIfStale(checkpoint, identity, options);
  } catch (error) {
    await checkpoint.close();
    throw error;
  }
  for (const message of checkpoint.notices) options.onEvent?.({ type: 'staging', message });
  // A resumed snapshot keeps the name of its first attempt.
  const dataDir = options.snapshot === true ? join(outDir, snapshotName(new Date(checkpoint.identity.started_at))) : outDir;
  let published = false;
  try {
    await makeFolder(dataDir);
    if (options.snapshot === true) await recoverSnapshots(outDir);
    const { pending } = await preparePending(dataDir);
    const metadata: Record<string, string> = { 'img-etl.source_url': sourceUrl, 'img-etl.schema_version': SCHEMA_VERSION };
    if (options.snapshot !== true) metadata['img-etl.snapshot_time'] = startedAt.toISOString(); // snapshots keep the time in the manifest and folder name

    // A failed write of a staged page (a full disk) names the staging folder; HTTP errors pass through.
    const collected = await collect(options, checkpoint, newExtractStats()).catch((cause: unknown) => {
      throw stagingError(cause);
    });
    options.onEvent?.({ type: 'publish-start', records: collected.index.received, formats });
    const reportStats = (options.report ?? options.snapshot === true) ? new ReportStats() : undefined;
    const drift = reportStats === undefined ? undefined : await driftTap(outDir, basename(dataDir), formats);
    const report = { stats: reportStats, arrowTap: drift?.tap };
    const publishOptions = { ...options, formats, metadata, dataDir: pending, ...report };
    const output = await publish(replayInIdOrder(collected.index, checkpoint), publishOptions);
    const { files, normalisation, written, rejects } = output;
    options.onEvent?.({ type: 'publish-end', rows: written, rejects, files: files.map((f) => ({ name: basename(f.path), format: f.format, rows: f.rows, bytes: f.bytes })) });

    const { stats, index, passes, expected } = collected;
    const manifest: Manifest = {
      tool: TOOL,
      schema_version: SCHEMA_VERSION,
      source_url: sourceUrl,
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      complete: index.received >= expected,
      expected,
      received: index.received,
      missing: Math.max(0, expected - index.received),
      count_at_start: collected.countAtStart,
      count_at_end: expected,
      passes: passes.map(passForManifest),
      pages_fetched: stats.pagesFetched,
      page_size: stats.pageSize,
      retries: stats.retries,
      skipped_offsets: stats.skippedOffsets,
      records_written: written,
      duplicates_dropped: passes.reduce((sum, p) => sum + p.duplicates, 0),
      conflicts: { count: collected.conflicts.length, first_ids: collected.conflicts.slice(0, MAX_CONFLICT_IDS) },
      rejects,
      normalisation: {
        sentinel_to_null: normalisation.sentinelToNull,
        empty_to_null: normalisation.emptyToNull,
        records_with_extra: normalisation.recordsWithExtra,
      },
      files: files.map(manifestFile),
    };
    if (reportStats !== undefined) {
      const { writeRunReport } = await import('../report/snapshot-report.js'); // loaded for runs with a report only
      const outcome = (await drift?.outcome) ?? {};
      const written = await writeRunReport({ pending, dataDir, baseDir: outDir, manifest, stats: reportStats, ...outcome });
      manifest.files.push(...written.map(manifestFile));
    }
    await checkTargets(dataDir, [...manifest.files.map((f) => f.name), FILE_NAMES.manifest]);
    await writeJsonAtomic(join(pending, FILE_NAMES.manifest), manifest); // the commit point (see publish-folder.ts)
    published = true;
    await publishPending(dataDir);
    const manifestPath = join(dataDir, FILE_NAMES.manifest);
    return { manifest, manifestPath, dataDir, preview: output.preview };
  } finally {
    if (!published) await rm(join(dataDir, PENDING_DIR), { recursive: true, force: true }).catch(() => undefined);
    await (published ? checkpoint.remove() : checkpoint.close());
    if (!published && dataDir !== outDir) await rmdir(dataDir).catch(() => undefined); // only if empty
  }
}

/** Resumes only staging whose records the service still holds: a sample fetched again by id (see check-staging.ts). */
async function discardIfStale(checkpoint: Checkpoint, identity: CheckpointIdentity, options: SnapshotOptions): Promise<void> {
  const check = await checkStaging(checkpoint, options);
  const differ = check.gone.length + check.changed.length;
  if (!check.stale) return;
  const which = [...(check.gone.length > 0 ? [`${check.gone.length} gone (id ${check.gone.slice(0, 5).join(', ')})`] : []), ...(check.changed.length > 0 ? [`${check.changed.length} changed (id ${check.changed.slice(0, 5).join(', ')})`] : [])];
  await checkpoint.discard(identity, `staging: ${differ} of ${check.sampled} staged records fetched again are ${which.join(' and ')} since the run started at ${checkpoint.identity.started_at}; the service changed: discarded the staging and started afresh`);
}

/**
 * The drift of a run against the snapshot `latest` points at, as a consumer of the run's Arrow batches (see
 * stream-drift.ts); a note instead when there is nothing to compare.
 */
async function driftTap(outDir: string, name: string, formats: readonly Format[]) {
  const previous = await latestSnapshot(outDir);
  if (previous === undefined || previous === name) return undefined;
  if (!formats.some((f) => f !== 'csv')) {
    const driftNote = `no comparison with ${previous}: a run compares what it writes as Parquet or Arrow, not CSV`;
    return { tap: undefined, outcome: Promise.resolve({ driftNote }) };
  }
  const { streamDrift } = await import('../report/stream-drift.js');
  let settle: (outcome: Awaited<ReturnType<typeof streamDrift>>) => void = () => undefined;
  const outcome = new Promise<Awaited<ReturnType<typeof streamDrift>>>((resolve) => (settle = resolve));
  // Arrow IPC reads with no decompression: the older snapshot's images.arrow when it has one, else its Parquet.
  const arrow = join(outDir, previous, FILE_NAMES.arrow);
  const older = (await stat(arrow).then((s) => s.isFile(), () => false)) ? arrow : join(outDir, previous);
  const tap = async (batches: AsyncIterable<RecordBatch>) => {
    settle(await streamDrift(older, previous, batches));
  };
  return { tap, outcome };
}

/** Finishes or discards what a crash left half-published in any snapshot folder of `outDir`. */
async function recoverSnapshots(outDir: string): Promise<void> {
  for (const name of await listSnapshots(outDir)) await recoverPending(join(outDir, name));
}

function manifestFile(f: SinkResult): Manifest['files'][number] {
  return { name: basename(f.path), format: f.format, rows: f.rows, bytes: f.bytes, sha256: f.sha256 };
}

function passForManifest(p: PassSummary): Manifest['passes'][number] {
  return { pass: p.pass, added: p.added, duplicates: p.duplicates, count_min: p.countMin, count_max: p.countMax, clean: p.clean };
}

/** What writing the files from one stream of valid records gave. */
interface Published {
  files: SinkResult[];
  normalisation: NormalisationCounts;
  written: number;
  rejects: number;
  preview: Row[];
}

/** What `publish` needs beyond the run's options. */
interface PublishOptions extends SnapshotOptions {
  formats: Format[];
  metadata: Record<string, string>;
  dataDir: string;
  /** Gathers the report's numbers from the rows written. */
  stats?: ReportStats;
  /** Consumes the Arrow batches beside the writers (the report's drift). */
  arrowTap?: (batches: AsyncIterable<RecordBatch>) => Promise<unknown>;
}

/** Normalises the valid records, applies the run's stages and writes every format. */
async function publish(source: AsyncIterable<ValidBatch>, options: PublishOptions): Promise<Published> {
  const normalisation = emptyNormalisationCounts();
  const preview: Row[] = [];
  let normalised = normalise(source, normalisation);
  for (const stage of options.stages ?? []) normalised = stage(normalised);
  const rows = counting(normalised, preview, options.previewRows ?? 0, options.onEvent);
  const stream = options.stats === undefined ? rows.stream : options.stats.observe(rows.stream);
  const { arrowTap } = options;
  const files = await writeOutputs(stream, { arrowTap, outDir: options.dataDir, formats: options.formats, parquetEngine: options.parquetEngine, csvEngine: options.csvEngine, neutraliseFormulas: options.neutraliseFormulas, metadata: options.metadata });
  return { files, normalisation, written: rows.written, rejects: rows.rejects, preview };
}

function counting(source: AsyncIterable<RowBatch>, preview: Row[], previewRows: number, onEvent?: SnapshotOptions['onEvent']) {
  const counter = { written: 0, rejects: 0, stream: undefined as unknown as AsyncIterable<RowBatch> };
  counter.stream = (async function* () {
    for await (const batch of source) {
      counter.written += batch.rows.length;
      counter.rejects += batch.rejects.length;
      for (const row of batch.rows) if (preview.length < previewRows) preview.push(row);
      onEvent?.({ type: 'publish-progress', rows: counter.written, rejects: counter.rejects });
      yield batch;
    }
  })();
  return counter;
}
