/**
 * A snapshot run from start to end: extract into the staging folder until complete, write the files in id order,
 * publish them with their manifest, and clean up; `runSnapshot` is the library's entry to it.
 */
import { rm, rmdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Checkpoint, type PageColumnsEncoder } from '../extract/staging/checkpoint.js';
import { type CheckpointIdentity } from '../extract/staging/staging-identity.js';
import { checkStaging } from '../extract/staging/check-staging.js';
import { stagingError } from '../extract/staging/staging-files.js';
import type { PipelineIdentity } from './pipeline-identity.js';
import { collect, type Collected } from '../extract/completeness/collect.js';
import { collectIncremental, type IncrementalCollected } from '../extract/completeness/collect-incremental.js';
import { runKind, type RunKind, type RunKindOptions } from './incremental/run-kind.js';
import { BaseRowMismatch } from './incremental/base-snapshot.js';
import type { PaginateOptions } from '../extract/paging/paginate.js';
import { listUrlOf } from '../extract/paging/page-url.js';
import { redactUrl } from '../extract/paging/redact-url.js';
import { makeFolder, missingFolders } from '../load/file-system/make-folder.js';
import type { SinkResult } from '../load/sink-result.js';
import type { CsvEngine } from '../load/csv/to-csv.js';
import type { ParquetEngine } from '../load/parquet/to-parquet.js';
import { writeJsonAtomic } from '../load/file-system/write-json-atomic.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';
import type { Row, RowBatch } from '../schema/row.js';
import type { RowStage } from '../transform/filter-rows.js';
import { checkFormats, FILE_NAMES, type Format } from '../snapshot/formats.js';
import type { RunEvent } from './run-events.js';
import { manifestNormalisation, type Manifest, type ManifestCollections } from './publish/manifest.js';
import {
  checkPendingListed,
  checkTargets,
  preparePending,
  publishPending,
  recoverBeside,
} from './publish/publish-folder.js';
import { listSnapshots, snapshotName } from '../snapshot/snapshot-names.js';
import { checkRunFiles } from './publish/check-run-files.js';
import { finishSnapshot, type SnapshotFinish, type SnapshotFinished } from './publish/snapshot-folders.js';
import { finishPruning } from './publish/prune-folder.js';
import { manifestFile, snapshotManifest } from './publish/snapshot-manifest.js';
import { writeCollections } from './write/write-collections.js';
import { writeRows } from './write/write-table.js';
import { NormalisationByCollection } from './write/normalisation-by-collection.js';
import type { WriteOutputsOptions } from './write/write-outputs.js';
import type { StagedColumns } from '../load/arrow/page-columns.js';
import type { OpenRunTap, RunTap, RunTapContext } from './run-tap.js';
import { progressTap } from './progress-tap.js';
import { stopIfAborted } from './until-aborted.js';
import { DEFAULT_BASE_URL, DEFAULT_OUT_DIR, DEFAULT_PAGE_SIZE } from '../extract/defaults.js';
import { replayCollections } from '../extract/completeness/replay-collections.js';

/** The staging folder of a run, inside its output folder. */
export const STAGING_DIR = '.img-etl-staging';

/**
 * A full snapshot run: where from (the list's paging, as PaginateOptions says), where to, which formats.
 */
export interface SnapshotOptions extends Pick<
  PaginateOptions,
  'baseUrl' | 'pageSize' | 'concurrency' | 'http' | 'retry' | 'signal'
> {
  /**
   * Passes over the image list at most (the first included) when the service has no collection endpoints; default 3.
   */
  maxPasses?: number;
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
   * With `snapshot`: read the whole image list even where the latest snapshot of `outDir` could be built on (an
   * incremental run reads only the collections that changed since it); default false.
   */
  full?: boolean;
  /** With `snapshot`: a full pass at least this many days after the last one; default 7. */
  fullEveryDays?: number;
  /** Stages applied in order to the normalised rows before they are written (filters); default none. */
  stages?: readonly RowStage[];
  /** The images table written: its columns and schema version; default IMAGES (a pipeline's adds its columns). */
  table?: Table;
  /**
   * The pipeline the run writes, by name and the sha256 of its file: part of the staging's identity (a changed
   * pipeline never resumes another's staging) and of the manifest; default none (see run-pipeline.ts).
   */
  pipeline?: PipelineIdentity;
  /** Told what the run does as it goes: extraction's events, then publishing's; default none. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Taps on the run: consumers of the images' batches beside the writers that may add files to the snapshot, in order
   * (run-tap.ts; the report is one, `reportTap`); default none.
   */
  taps?: readonly RunTap[];
  /**
   * With `snapshot`: once its folder is published, point `{outDir}/latest` at it and prune older snapshots (see
   * SnapshotFinish), while the run still holds the output folder's lock, so that no other run publishes, links or
   * prunes in between; default none: `latest` and older snapshots are left alone.
   */
  finish?: SnapshotFinish;
}

/** What a run produced. */
export interface SnapshotResult extends SnapshotFinished {
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
 * in id order, beside the taps it is given), each file atomically, then the taps' files and the manifest, and removes
 * the staging folder.
 * An interrupted or failed run keeps the staging folder for the next attempt.
 */
export async function runSnapshot(options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const run = await planRun(options);
  const { checkpoint, imageRequests, kind: planned } = await openStaging(run);
  // A resumed snapshot keeps the name of its first attempt.
  const dataDir = run.snapshot ? join(run.outDir, snapshotName(new Date(checkpoint.identity.started_at))) : run.outDir;
  let published = false;
  let pending: string | undefined; // made by this run: removed unless published
  try {
    pending = await preparePublishing(run, dataDir);
    const { table, pipeline } = run;
    const { neutraliseFormulas = true, signal } = run.writing;
    const where = { pending, dataDir, baseDir: run.outDir, formats: run.formats, table, neutraliseFormulas, signal };
    const { collected, kind, taps, data } = await extractAndWrite(run, checkpoint, planned, where);
    const { sourceUrl, startedAt } = run;
    const inputs = { sourceUrl, startedAt, imageRequests, table, pipeline, kind, ...data };
    const manifest = snapshotManifest(collected, inputs);
    for (const tap of taps) manifest.files.push(...((await tap.beforeCommit?.(manifest)) ?? []).map(manifestFile));
    await commitManifest(dataDir, pending, manifest, signal);
    published = true;
    await publishPending(dataDir);
    // Published: its staging goes now (a run killed from here on is not resumed), its lock only in closeRun.
    await checkpoint.empty();
    const finished =
      run.snapshot && run.finish !== undefined
        ? await finishSnapshot(run.outDir, basename(dataDir), manifest.missing, run.finish)
        : {};
    const manifestPath = join(dataDir, FILE_NAMES.manifest);
    return { manifest, manifestPath, dataDir, preview: data.images.preview, ...finished };
  } finally {
    await closeRun(run, { dataDir, pending }, checkpoint, published);
  }
}

/**
 * What the steps of a run share, settled before anything is fetched: each step's own options, built once from the
 * run's, so that no step is handed options it does not read.
 */
type RunPlan = Awaited<ReturnType<typeof planRun>>;

/** Settles where the run writes and what it fetches, and stops it early on someone else's file in the way. */
async function planRun(options: SnapshotOptions) {
  const formats: Format[] = [...new Set<Format>(checkFormats(options.formats ?? ['parquet']))];
  const startedAt = new Date();
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  // The folders of outDir the run creates, deepest first: removed when it fails before staging anything.
  const created = await missingFolders(outDir);
  await makeFolder(outDir);
  // Someone else's file where this run would write stops it before anything is fetched or staged.
  if (options.snapshot !== true)
    await checkTargets(outDir, [...formats.map((f) => FILE_NAMES[f]), FILE_NAMES.manifest]);
  const sourceUrl = redactUrl(listUrlOf(options.baseUrl ?? DEFAULT_BASE_URL).href); // as recorded: never a credential
  const table = options.table ?? IMAGES;
  const staged = stagedColumns(options, formats);
  const encodeColumns = columnsEncoder(table, staged);
  const { baseUrl, pageSize, concurrency, http, retry, signal, onEvent, snapshot = false, stages = [] } = options;
  const kind = runKindOptions(options, sourceUrl, startedAt);
  const { parquetEngine, csvEngine, neutraliseFormulas, previewRows } = options;
  return {
    ...{ startedAt, outDir, formats, sourceUrl, table, staged, encodeColumns, created, kind, snapshot },
    list: { baseUrl, pageSize, concurrency, http, retry, signal, onEvent },
    maxPasses: options.maxPasses,
    staging: { fresh: options.fresh, maxAgeMs: options.maxResumeAgeMs },
    writing: { parquetEngine, csvEngine, neutraliseFormulas, signal, stages, previewRows },
    ...{ finish: options.finish, pipeline: options.pipeline, taps: options.taps ?? [] },
    onEvent,
  };
}

/** What decides the kind of a run with `options` started `now` (a `--dry-run` asks the same). */
export function runKindOptions(options: SnapshotOptions, sourceUrl: string, now: Date): RunKindOptions {
  return {
    baseDir: options.snapshot === true ? (options.outDir ?? DEFAULT_OUT_DIR) : undefined,
    full: options.full === true,
    fullEveryDays: options.fullEveryDays,
    stages: (options.stages ?? []).length > 0,
    sourceUrl,
    table: options.table ?? IMAGES,
    pipeline: options.pipeline,
    now,
  };
}

/** The staging's encoder of pages' columns; apache-arrow loads while the first pages are fetched. */
function columnsEncoder(table: Table, staged: StagedColumns): PageColumnsEncoder {
  const encoding = import('../load/arrow/page-columns.js');
  encoding.catch(() => undefined); // a failed load is reported by the first page staged
  return async (page) => (await encoding).encodePageColumns(table, page, staged);
}

/**
 * What pages stage beside their bodies: what the write consumes. Their rows' CSV records too when the run writes CSV
 * with the builtin writer and no stage changes the rows on the way (the records are then what the CSV file holds, in
 * id order); and only those, with each row's collection, when nothing else reads the rows: CSV is the one format, and
 * there is no snapshot (its index and report read every row), tap or preview.
 */
function stagedColumns(options: SnapshotOptions, formats: readonly Format[]): StagedColumns {
  const builtin = (options.csvEngine ?? 'builtin') === 'builtin';
  if (!formats.includes('csv') || !builtin || (options.stages ?? []).length > 0) return { rows: true };
  const csv = { neutraliseFormulas: options.neutraliseFormulas ?? true };
  const readers = options.snapshot === true || (options.taps ?? []).length > 0 || (options.previewRows ?? 0) > 0;
  return formats.length === 1 && !readers ? { rows: false, csv } : { rows: true, csv };
}

/**
 * Opens the staging folder: resumes an unfinished run when the service still holds what it staged, else starts
 * afresh; tells the staging's notices. Resolves to the open staging, the requests checking what it resumed took, and
 * what the run builds on (runKind: decided once the staging is open, kept in its journal).
 */
async function openStaging(run: RunPlan) {
  const identity = {
    source_url: run.sourceUrl,
    page_size: run.list.pageSize ?? DEFAULT_PAGE_SIZE,
    started_at: run.startedAt.toISOString(),
    ...(run.pipeline === undefined ? {} : { pipeline: run.pipeline }),
    schema_version: run.table.schemaVersion,
  };
  const stagingDir = join(run.outDir, STAGING_DIR);
  await makeFolder(stagingDir, 'staging');
  const checkpoint = await Checkpoint.open(stagingDir, identity, { ...run.staging, columns: run.encodeColumns }).catch(
    (cause: unknown) => {
      throw stagingError(stagingDir, cause);
    },
  );
  let imageRequests = 0;
  let kind: RunKind;
  try {
    if (checkpoint.pagesKept > 0) imageRequests = await discardIfStale(checkpoint, identity, run.list);
    kind = await runKind(checkpoint, run.kind);
  } catch (error) {
    await checkpoint.close();
    throw error;
  }
  for (const message of checkpoint.notices) run.onEvent?.({ type: 'staging', message });
  announceKind(run, kind);
  return { checkpoint, imageRequests, kind };
}

/** Tells a `--snapshot` run's kind: what it builds on, or why it makes a full pass. */
function announceKind(run: RunPlan, kind: RunKind): void {
  if ('base' in kind) run.onEvent?.({ type: 'run-kind', kind: 'incremental', base: kind.base.name });
  else if (kind.full !== '') run.onEvent?.({ type: 'run-kind', kind: 'full', why: kind.full });
}

/**
 * Collects the run's records, then writes its data files beside its taps. A row the run carries over that is not what
 * its base's index says is met only as it is written (carry-over.ts): the run then makes a full pass and writes again.
 */
async function extractAndWrite(
  run: RunPlan,
  checkpoint: Checkpoint,
  planned: RunKind,
  where: Omit<RunTapContext, 'name'>,
): Promise<{ collected: Collected; kind: RunKind; taps: OpenRunTap[]; data: Awaited<ReturnType<typeof writeData>> }> {
  // A failed write of a staged page (a full disk) names the staging folder; HTTP errors pass through.
  const { collected, kind } = await extract(run, checkpoint, planned).catch((cause: unknown) => {
    throw stagingError(checkpoint.dir, cause);
  });
  const { incremental, images } = collected.completeness; // an incremental run's rows: carried over and read
  const records = incremental === undefined ? collected.index.received : images.received;
  run.onEvent?.({ type: 'publish-start', records, formats: run.formats });
  const taps = await openTaps(run, where);
  try {
    return { collected, kind, taps, data: await writeData(run, { collected, kind }, checkpoint, where.pending, taps) };
  } catch (error) {
    if (!(error instanceof BaseRowMismatch)) throw error;
    const full = await fullInstead(run, checkpoint, error.message);
    return extractAndWrite(run, checkpoint, full, where);
  }
}

/**
 * Collects the run's records: what changed since its base (an incremental run), or the whole list. An incremental
 * run whose rows the image list's count does not confirm makes a full pass instead.
 */
async function extract(
  run: RunPlan,
  checkpoint: Checkpoint,
  kind: RunKind,
): Promise<{ collected: Collected; kind: RunKind }> {
  if (!('base' in kind)) return { collected: await collect(run.list, checkpoint, run.maxPasses), kind };
  const got = await collectIncremental(run.list, checkpoint, kind.base);
  if (!('fallback' in got)) return { collected: got, kind };
  return extract(run, checkpoint, await fullInstead(run, checkpoint, got.fallback));
}

/** Discards what an incremental run staged and makes the rest of it (and a resumed one) a full pass, saying why. */
async function fullInstead(run: RunPlan, checkpoint: Checkpoint, why: string): Promise<RunKind> {
  const full: RunKind = { full: `${why}: a full pass instead` };
  await checkpoint.discard(checkpoint.identity, `staging: ${full.full}`);
  await checkpoint.mark({ type: 'base', name: null, why: full.full });
  announceKind(run, full);
  return full;
}

/** Makes the data folder (finishing what a crash left half-published) and its pending folder, resolved to. */
async function preparePublishing(run: RunPlan, dataDir: string): Promise<string> {
  await makeFolder(dataDir);
  if (run.snapshot) await recoverSnapshots(run.outDir, dataDir, run.onEvent);
  return preparePending(dataDir);
}

/** The key-value metadata of the run's data files. */
function dataMetadata(run: RunPlan): Record<string, string> {
  return {
    'img-etl.source_url': run.sourceUrl,
    'img-etl.schema_version': run.table.schemaVersion,
    // snapshots keep the time in the manifest and folder name
    ...(run.snapshot ? {} : { 'img-etl.snapshot_time': run.startedAt.toISOString() }),
  };
}

/** Opens the run's taps in order, once its records are all fetched; if one fails, aborts those opened before it. */
async function openTaps(run: RunPlan, where: Omit<RunTapContext, 'name'>): Promise<OpenRunTap[]> {
  const context: RunTapContext = { ...where, name: basename(where.dataDir) };
  const opened: OpenRunTap[] = [];
  try {
    const { onEvent } = run;
    const taps = [...(onEvent === undefined ? [] : [progressTap(onEvent)]), ...run.taps];
    for (const tap of taps) opened.push(await tap.open(context));
  } catch (error) {
    for (const tap of opened) await tap.abort?.();
    throw error;
  }
  return opened;
}

/**
 * Writes every format of the images (from the staging folder in id order, beside the taps, then the taps' files) and
 * of the collections into `pending`, telling the progress and the files; resolves to what the run wrote: the images,
 * the collections, and every file.
 */
async function writeData(
  run: RunPlan,
  { collected, kind }: { collected: Collected; kind: RunKind },
  checkpoint: Checkpoint,
  pending: string,
  taps: readonly OpenRunTap[],
) {
  const { stages, previewRows, ...engines } = run.writing;
  const writing = { ...engines, outDir: pending, formats: run.formats, metadata: dataMetadata(run) };
  // Before the images: their write holds the run's most memory (its spill and the writers' buffers), which the
  // collections' pass would add to; and before the taps' beforeCommit, which reads the table back (the report).
  const collections = await collectionsTable(collected, checkpoint, writing);
  const normalisation = new NormalisationByCollection();
  const rows = await replayed(run, { collected, kind }, checkpoint, taps, normalisation);
  const written = await writeRows(rows, {
    ...writing,
    table: run.table,
    stages,
    previewRows,
    rowTaps: taps.flatMap((tap) => (tap.rows === undefined ? [] : [tap.rows])),
    arrowTaps: taps.flatMap((tap) => (tap.arrow === undefined ? [] : [tap.arrow])),
  }).catch(async (error: unknown) => {
    for (const tap of taps) await tap.abort?.();
    throw error;
  });
  const images = { ...written, normalisation: normalisation.totals(run.table) };
  // What the next --snapshot run carries over needs its counts (normalisation-by-collection.ts).
  if (run.snapshot) images.files.push(await normalisation.write(join(pending, FILE_NAMES.normalisation), run.table));
  const tapFiles: SinkResult[] = [];
  for (const tap of taps) tapFiles.push(...((await tap.afterImages?.()) ?? []));
  const files = [...images.files, ...tapFiles, ...collections.files];
  const fileEvents = files.map((f) => ({ name: basename(f.path), format: f.format, rows: f.rows, bytes: f.bytes }));
  run.onEvent?.({ type: 'publish-end', rows: images.written, rejects: images.rejects, files: fileEvents });
  return { images, collections: collections.manifest, files };
}

/**
 * The images in id order: the staged ones as batches of staged columns, or in an incremental run merged with the rows
 * carried over from its base; adds what normalisation replaced in them to `counts`.
 */
async function replayed(
  run: RunPlan,
  { collected, kind }: { collected: Collected; kind: RunKind },
  checkpoint: Checkpoint,
  taps: readonly OpenRunTap[],
  counts: NormalisationByCollection,
): Promise<AsyncIterable<RowBatch>> {
  if ('base' in kind) {
    const { carryOver } = await import('./incremental/carry-over.js');
    const { base } = kind;
    const { carried } = collected as IncrementalCollected;
    return carryOver(collected.index, checkpoint, run.table, counts, { base, carried, imagesUrl: run.sourceUrl });
  }
  const { replayColumns } = await import('./write/replay-columns.js');
  // Arrow batches are gathered for what reads them, as writeOutputs builds them for rows (write-outputs.ts).
  const arrow = run.formats.some((f) => f !== 'csv') || taps.some((tap) => tap.arrow !== undefined);
  return replayColumns(collected.index, checkpoint, run.table, counts, { arrow, consumed: run.staged });
}

/**
 * Writes the manifest into `pending` once no one else's file is where the run's would go, unless the run was aborted
 * by then: the last point where it stops (the moves after the commit are finished whatever comes).
 */
async function commitManifest(dataDir: string, pending: string, manifest: Manifest, signal?: AbortSignal) {
  const names = [...manifest.files.map((f) => f.name), FILE_NAMES.manifest];
  await checkRunFiles(pending, manifest.files);
  await checkPendingListed(pending, names);
  await checkTargets(dataDir, names);
  await stopIfAborted(signal);
  await writeJsonAtomic(join(pending, FILE_NAMES.manifest), manifest); // the commit point (see publish-folder.ts)
}

/**
 * Removes the staging of a published run, and of one that staged nothing; of any other, closes it. A run not published
 * removes what it left to publish, and the folders it created when they are empty (nothing staged).
 */
async function closeRun(
  run: RunPlan,
  { dataDir, pending }: { dataDir: string; pending?: string },
  checkpoint: Checkpoint,
  published: boolean,
): Promise<void> {
  // only the pending folder this run made: a file of that name it could not make it over is someone's
  if (!published && pending !== undefined) await rm(pending, { recursive: true, force: true }).catch(() => undefined);
  await (published || checkpoint.pagesKept === 0 ? checkpoint.remove() : checkpoint.close());
  if (published) return;
  // only if empty: a folder holding staging (or anyone's file) stays
  for (const folder of [...(dataDir === run.outDir ? [] : [dataDir]), ...run.created])
    await rmdir(folder).catch(() => undefined);
}

/**
 * Resumes only staging whose records the service still holds: a sample fetched again by id (see check-staging.ts).
 * Resolves to the requests the check sent.
 */
async function discardIfStale(
  checkpoint: Checkpoint,
  identity: CheckpointIdentity,
  list: PaginateOptions,
): Promise<number> {
  const check = await checkStaging(checkpoint, list);
  const differ = check.gone.length + check.changed.length;
  if (!check.stale) return check.requests;
  const which = (['gone', 'changed'] as const)
    .filter((how) => check[how].length > 0)
    .map((how) => `${check[how].length} ${how} (id ${check[how].slice(0, 5).join(', ')})`);
  await checkpoint.discard(
    identity,
    `staging: ${differ} of ${check.sampled} staged records fetched again are ${which.join(' and ')} ` +
      `since the run started at ${checkpoint.identity.started_at}; ` +
      'the service changed: discarded the staging and started afresh',
  );
  return check.requests;
}

/**
 * Finishes what a run killed or failed while it pruned left (prune-folder.ts), and finishes or discards what a crash
 * left half-published in the snapshot folders of `outDir` other than `dataDir` (the run's own: preparePending's). One
 * it cannot finish is a `leftover` event, never a failure: it is in a folder this run does not publish into.
 */
async function recoverSnapshots(outDir: string, dataDir: string, onEvent?: (event: RunEvent) => void): Promise<void> {
  for (const message of await finishPruning(outDir)) onEvent?.({ type: 'leftover', message });
  for (const name of await listSnapshots(outDir)) {
    if (name === basename(dataDir)) continue;
    const message = await recoverBeside(join(outDir, name), dataDir);
    if (message !== undefined) onEvent?.({ type: 'leftover', message });
  }
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
