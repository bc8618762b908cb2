/** The manifest of a run: what it fetched, how complete, what it wrote and what normalisation replaced. */
import { basename } from 'node:path';
import { MAX_CONFLICT_IDS, type Collected, type PassSummary } from '../../extract/completeness/collect.js';
import type { IncrementalCollected } from '../../extract/completeness/collect-incremental.js';
import type { SinkResult } from '../../load/sink-result.js';
import type { Table } from '../../schema/table.js';
import { manifestNormalisation, type Manifest, type ManifestCollections } from './manifest.js';
import type { PipelineIdentity } from '../pipeline-identity.js';
import { TOOL } from '../../snapshot/tool.js';
import type { TableOutput } from '../write/write-table.js';

/** What a run's manifest is made from besides what it collected. */
export interface SnapshotManifestInputs {
  /** The list endpoint paged, as recorded: never a credential. */
  sourceUrl: string;
  /** When the run started. */
  startedAt: Date;
  /** Requests for single images (the check of resumed staging). */
  imageRequests: number;
  /** The images table written (its schema version). */
  table: Table;
  /** The pipeline the run wrote, if any. */
  pipeline?: PipelineIdentity;
  /** What writing the images gave. */
  images: TableOutput;
  /** The collections table's part of the manifest. */
  collections: ManifestCollections;
  /** Every file written so far: the images, their index, the collections. */
  files: readonly SinkResult[];
  /** What the run built on: an earlier snapshot (its name, and when its last full pass started), or none and why. */
  kind: { base: { name: string; lastFullAt: string } } | { full: string };
}

/** The manifest of a run that collected `collected` and wrote `inputs.files`, finished now. */
export function snapshotManifest(collected: Collected, inputs: SnapshotManifestInputs): Manifest {
  const { sourceUrl, startedAt, imageRequests, table, pipeline, images, collections, files } = inputs;
  const { normalisation, written, rejects } = images;
  const { stats, index, passes, expected, missing } = collected;
  const carried = 'carriedRows' in collected ? (collected as IncrementalCollected).carriedRows : 0;
  return {
    tool: TOOL,
    runtime: { node: process.version, flags: [...process.execArgv] },
    schema_version: table.schemaVersion,
    ...(pipeline === undefined ? {} : { pipeline }),
    source_url: sourceUrl,
    started_at: startedAt.toISOString(),
    ...kindFields(inputs.kind, startedAt),
    finished_at: new Date().toISOString(),
    complete: missing === 0,
    expected,
    received: carried + index.received,
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
    collections,
    files: files.map(manifestFile),
  };
}

/** What the manifest says of the run's kind: incremental on its base, or full (and why, for a `--snapshot` run). */
function kindFields(
  kind: SnapshotManifestInputs['kind'],
  startedAt: Date,
): Pick<Manifest, 'kind' | 'base' | 'full_because' | 'last_full_at'> {
  if ('base' in kind) return { kind: 'incremental', base: kind.base.name, last_full_at: kind.base.lastFullAt };
  const because = kind.full === '' ? {} : { full_because: kind.full };
  return { kind: 'full', ...because, last_full_at: startedAt.toISOString() };
}

/** A file written, as the manifest lists it. */
export function manifestFile(f: SinkResult): Manifest['files'][number] {
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
