import { rm, rmdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Checkpoint, type CheckpointIdentity } from '../extract/checkpoint.js';
import { checkStaging } from '../extract/check-staging.js';
import {
  collect,
  MAX_CONFLICT_IDS,
  type Collected,
  type CollectOptions,
  type PassSummary,
} from '../extract/collect.js';
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
import { COLLECTIONS } from '../schema/collection-columns.js';
import { SCHEMA_VERSION } from '../schema/columns.js';
import type { Row } from '../schema/row.js';
import type { RowStage } from '../transform/filter-rows.js';
import { FILE_NAMES, type Format } from './formats.js';
import { manifestNormalisation, type Manifest, type ManifestCollections } from './manifest.js';
import { checkTargets, PENDING_DIR, preparePending, publishPending, recoverPending } from './publish-folder.js';
import { listSnapshots, snapshotName } from './snapshot-folders.js';
import { TOOL } from './tool.js';
import { writeCollections } from './write-collections.js';
import { writeTable } from './write-table.js';
import type { WriteOutputsOptions } from './write-outputs.js';
// The one import up the layers (issue 24: the report's numbers, index and drift become taps the runner is given).
// eslint-disable-next-line import-x/no-restricted-paths -- the report is called from the runner until it is a tap
import { ReportStats } from '../report/report-stats.js';
import { SnapshotIndexWriter } from './snapshot-index-writer.js';
import { DEFAULT_BASE_URL, DEFAULT_PAGE_SIZE } from '../extract/defaults.js';
import { replayCollections } from '../extract/replay-collections.js';

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
  /**
   * Resume an unfinished run only if it started less than this long ago, else discard its staging; default 12 hours.
   */
  maxResumeAgeMs?: number;
  /**
   * Write into a new folder `outDir/<UTC start time>/` and keep wall-clock time out of the data files (byte-identical
   * reruns); default false.
   */
  snapshot?: boolean;
  /**
   * Stages applied in order to the normalised rows before they are written (filters, derived columns); default none.
   */
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
 * pages the collections list, writes every format of both tables (the images from the staging folder with the records
 * in id order), each file atomically, then the manifest, and removes the staging folder.
 * An interrupted or failed run keeps the staging folder for the next attempt.
 */
export async function runSnapshot(options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const startedAt = new Date();
  const outDir = options.outDir ?? 'output';
  const formats: Format[] = [...new Set<Format>(options.formats ?? ['parquet'])];
  await makeFolder(outDir);
  // Someone else's file where this run would write stops it before anything is fetched or staged.
  if (options.snapshot !== true)
    await checkTargets(outDir, [...formats.map((f) => FILE_NAMES[f]), FILE_NAMES.manifest]);
  const sourceUrl = redactUrl(listUrlOf(options.baseUrl ?? DEFAULT_BASE_URL).href); // as recorded: never a credential
  const identity = {
    source_url: sourceUrl,
    page_size: options.pageSize ?? DEFAULT_PAGE_SIZE,
    started_at: startedAt.toISOString(),
  };
  const stagingDir = join(outDir, STAGING_DIR);
  const stagingError = (cause: unknown) =>
    fileSystemError({ stage: 'staging', action: 'write to', path: stagingDir, cause });
  await makeFolder(stagingDir, 'staging');
  const checkpoint = await Checkpoint.open(stagingDir, identity, {
    fresh: options.fresh,
    maxAgeMs: options.maxResumeAgeMs,
  }).catch((cause: unknown) => {
    throw stagingError(cause);
  });
  let imageRequests = 0;
  try {
    if (checkpoint.pagesKept > 0) imageRequests = await discardIfStale(checkpoint, identity, options);
  } catch (error) {
    await checkpoint.close();
    throw error;
  }
  for (const message of checkpoint.notices) options.onEvent?.({ type: 'staging', message });
  // A resumed snapshot keeps the name of its first attempt.
  const dataDir =
    options.snapshot === true ? join(outDir, snapshotName(new Date(checkpoint.identity.started_at))) : outDir;
  let published = false;
  try {
    await makeFolder(dataDir);
    if (options.snapshot === true) await recoverSnapshots(outDir);
    const { pending } = await preparePending(dataDir);
    const metadata: Record<string, string> = {
      'img-etl.source_url': sourceUrl,
      'img-etl.schema_version': SCHEMA_VERSION,
    };
    // snapshots keep the time in the manifest and folder name
    if (options.snapshot !== true) metadata['img-etl.snapshot_time'] = startedAt.toISOString();

    // A failed write of a staged page (a full disk) names the staging folder; HTTP errors pass through.
    const collected = await collect(options, checkpoint, newExtractStats()).catch((cause: unknown) => {
      throw stagingError(cause);
    });
    options.onEvent?.({ type: 'publish-start', records: collected.index.received, formats });
    const reportStats = (options.report ?? options.snapshot === true) ? new ReportStats() : undefined;
    const indexer = reportStats === undefined ? undefined : await SnapshotIndexWriter.create(pending);
    const drift = reportStats === undefined ? undefined : await runDrift(outDir, basename(dataDir), formats);
    const writing = {
      outDir: pending,
      formats,
      parquetEngine: options.parquetEngine,
      csvEngine: options.csvEngine,
      neutraliseFormulas: options.neutraliseFormulas,
    };
    const output = await writeTable(replayInIdOrder(collected.index, checkpoint), {
      ...writing,
      metadata,
      stages: options.stages,
      previewRows: options.previewRows,
      onProgress: (rows, rejects) => options.onEvent?.({ type: 'publish-progress', rows, rejects }),
      observe: reportStats === undefined ? undefined : (rows) => indexer!.observe(reportStats.observe(rows)),
      arrowTap: drift?.tap,
    }).catch(async (error: unknown) => {
      await indexer?.abort();
      throw error;
    });
    const { normalisation, written, rejects } = output;
    const indexFile = await indexer?.finish();
    const indexFiles = indexFile === undefined ? [] : [indexFile];
    // Before the report, which reads the collections table from the pending folder (owners).
    const collections = await collectionsTable(collected, checkpoint, { ...writing, metadata });
    const files = [...output.files, ...indexFiles, ...collections.files];
    const fileEvents = files.map((f) => ({ name: basename(f.path), format: f.format, rows: f.rows, bytes: f.bytes }));
    options.onEvent?.({ type: 'publish-end', rows: written, rejects, files: fileEvents });

    const { stats, index, passes, expected, missing } = collected;
    const manifest: Manifest = {
      tool: TOOL,
      runtime: { node: process.version, flags: [...process.execArgv] },
      schema_version: SCHEMA_VERSION,
      source_url: sourceUrl,
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      complete: missing === 0,
      expected,
      received: index.received,
      missing,
      count_at_start: collected.countAtStart,
      count_at_end: expected,
      passes: passes.map(passForManifest),
      completeness: collected.completeness,
      requests: { ...collected.requests, image: imageRequests },
      pages_fetched: stats.pagesFetched,
      page_size: stats.pageSize,
      retries: stats.retries,
      skipped_offsets: stats.skippedOffsets,
      records_written: written,
      duplicates_dropped: passes.reduce((sum, p) => sum + p.duplicates, 0),
      conflicts: { count: collected.conflicts.length, first_ids: collected.conflicts.slice(0, MAX_CONFLICT_IDS) },
      rejects,
      normalisation: manifestNormalisation(normalisation),
      collections: collections.manifest,
      files: files.map(manifestFile),
    };
    if (reportStats !== undefined) {
      // eslint-disable-next-line import-x/no-restricted-paths -- the report is called from the runner until it is a tap
      const { writeRunReport } = await import('../report/snapshot-report.js'); // loaded for runs with a report only
      const outcome = (await drift?.outcome(pending, indexFile !== undefined)) ?? {};
      const written = await writeRunReport({
        pending,
        dataDir,
        baseDir: outDir,
        manifest,
        stats: reportStats,
        ...outcome,
      });
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

/**
 * Resumes only staging whose records the service still holds: a sample fetched again by id (see check-staging.ts).
 * Resolves to the requests the check sent.
 */
async function discardIfStale(
  checkpoint: Checkpoint,
  identity: CheckpointIdentity,
  options: SnapshotOptions,
): Promise<number> {
  const check = await checkStaging(checkpoint, options);
  const differ = check.gone.length + check.changed.length;
  if (!check.stale) return check.requests;
  const which = [
    ...(check.gone.length > 0 ? [`${check.gone.length} gone (id ${check.gone.slice(0, 5).join(', ')})`] : []),
    ...(check.changed.length > 0
      ? [`${check.changed.length} changed (id ${check.changed.slice(0, 5).join(', ')})`]
      : []),
  ];
  await checkpoint.discard(
    identity,
    `staging: ${differ} of ${check.sampled} staged records fetched again are ${which.join(' and ')} ` +
      `since the run started at ${checkpoint.identity.started_at}; ` +
      'the service changed: discarded the staging and started afresh',
  );
  return check.requests;
}

/** How the run gets its drift against the snapshot before it (run-drift.ts, loaded for runs with a report only). */
async function runDrift(outDir: string, name: string, formats: readonly Format[]) {
  // eslint-disable-next-line import-x/no-restricted-paths -- the report is called from the runner until it is a tap
  return (await import('../report/run-drift.js')).planRunDrift(outDir, name, formats);
}

/** Finishes or discards what a crash left half-published in any snapshot folder of `outDir`. */
async function recoverSnapshots(outDir: string): Promise<void> {
  for (const name of await listSnapshots(outDir)) await recoverPending(join(outDir, name));
}

function manifestFile(f: SinkResult): Manifest['files'][number] {
  return { name: basename(f.path), format: f.format, rows: f.rows, bytes: f.bytes, sha256: f.sha256 };
}

function passForManifest(p: PassSummary): Manifest['passes'][number] {
  return {
    pass: p.pass,
    added: p.added,
    duplicates: p.duplicates,
    count_min: p.countMin,
    count_max: p.countMax,
    clean: p.clean,
  };
}

/**
 * Writes the collections table of `listing` beside the images (its own source URL and schema version in the files'
 * metadata), or says why there is none; resolves to its files and its part of the manifest.
 */
async function collectionsTable(
  collected: Collected,
  checkpoint: Checkpoint,
  options: Omit<WriteOutputsOptions, 'table'>,
): Promise<{ files: SinkResult[]; manifest: ManifestCollections }> {
  const { collections: listing, completeness } = collected;
  const url = redactUrl(listing.url);
  if (listing.status !== 200) {
    const absent = completeness.note ?? `the service answered ${listing.status} for ${url}: no collections table`;
    return { files: [], manifest: { source_url: url, absent } };
  }
  const version = COLLECTIONS.schemaVersion;
  const metadata = { ...options.metadata, 'img-etl.source_url': url, 'img-etl.schema_version': version };
  const exclude = completeness.unreadable.map((c) => c.id); // made private or deleted while the run read them
  const table = await writeCollections(replayCollections(listing, checkpoint, { exclude }), { ...options, metadata });
  const manifest: ManifestCollections = {
    source_url: url,
    schema_version: version,
    records_written: table.written,
    rejects: table.rejects,
    normalisation: manifestNormalisation(table.normalisation),
  };
  return { files: table.files, manifest };
}
