/**
 * The snapshot an incremental run builds on: the one `latest` points at in the base folder (so its run exited 0), of
 * the same source, schema version and pipeline, holding images.parquet or images.arrow (a CSV-only snapshot is not a
 * lossless base) and images.index, whose last full pass is recent enough, and whose files are what its manifest says
 * (size and sha256). Anything else, and the run makes a full pass, saying why in one line. Each row it carries over is
 * checked against its images.index as it is carried (carry-over.ts): a row that is not what the index says makes a full
 * pass then (BaseRowMismatch).
 */
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { RecordBatch } from 'apache-arrow';
import type { BaseCollection, IncrementalBase } from '../../extract/completeness/collect-incremental.js';
import { COLLECTIONS } from '../../schema/collection-columns.js';
import { IMAGES } from '../../schema/columns.js';
import type { Table } from '../../schema/table.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { manifestText } from '../../snapshot/read-manifest.js';
import { readSnapshotRows } from '../../snapshot/read-snapshot-rows.js';
import { latestSnapshot } from '../../snapshot/snapshot-names.js';
import { verifySnapshotFile } from '../../snapshot/verify-snapshot-file.js';
import { carriedRejectsOf, type CarriedReject } from './carried-rejects.js';
import { NormalisationByCollection } from '../write/normalisation-by-collection.js';
import type { PipelineIdentity } from '../pipeline-identity.js';

/** What the run must match to build on an earlier snapshot, and how long it trusts one. */
export interface BaseWants {
  /** The image list's URL, as manifests record it. */
  sourceUrl: string;
  /** The images table the run writes (its schema version, and a pipeline's columns). */
  table: Table;
  /** The pipeline the run writes; undefined for none. */
  pipeline: PipelineIdentity | undefined;
  /** A full pass at least this many days after the last one. */
  fullEveryDays: number;
  /** Now. */
  now: Date;
  /** The snapshot an earlier process of this run chose (from its journal): only that one, unchanged. */
  chosen?: { name: string; manifest_sha256: string };
}

/** An earlier snapshot to build on. */
export interface BaseSnapshot extends IncrementalBase {
  /** Its folder. */
  dir: string;
  /** The sha256 of its manifest: a resumed run builds on the same one. */
  manifestSha256: string;
  /** Its images file, one its manifest lists: the rows carried over are read from it. */
  imagesFile: string;
  /** When its last full pass started (its own start for a full run), ISO 8601. */
  lastFullAt: string;
  /** Its rejects, each with its collection (null when it has no usable one), in its file's order. */
  rejects: CarriedReject[];
  /** What normalisation replaced in its rows, per collection: the counts of the rows carried over. */
  normalisation: NormalisationByCollection;
}

/** The base, or why there is none (one line). */
export type BaseChoice = { base: BaseSnapshot } | { full: string };

/** A row of the base that is not what its images.index says, met as it is carried over: the run makes a full pass. */
export class BaseRowMismatch extends Error {}

/** Chooses the snapshot to build on in `baseDir`, or says why the run makes a full pass. */
export async function chooseBase(baseDir: string, wants: BaseWants): Promise<BaseChoice> {
  const name = await latestSnapshot(baseDir);
  if (name === undefined) return { full: `there is no earlier snapshot in ${baseDir} to build on` };
  if (wants.chosen !== undefined && wants.chosen.name !== name)
    return { full: `the snapshot this run built on, ${wants.chosen.name}, is no longer the latest` };
  const dir = join(baseDir, name);
  const text = await manifestText(join(dir, FILE_NAMES.manifest));
  const manifest = parse(text);
  if (text === undefined || manifest === undefined) return { full: `${dir} has no img-etl manifest to read` };
  const manifestSha256 = createHash('sha256').update(text).digest('hex');
  if (wants.chosen !== undefined && wants.chosen.manifest_sha256 !== manifestSha256)
    return { full: `the manifest of ${dir} changed since this run chose it` };
  const refused = refusal(name, manifest, wants);
  if (refused !== undefined) return { full: refused };
  try {
    return { base: await readBase(dir, name, manifest, manifestSha256, wants.table) };
  } catch (error) {
    return { full: `the earlier snapshot ${name} cannot be built on: ${(error as Error).message}` };
  }
}

/** What a base's manifest must say, as read. */
interface BaseManifest {
  source_url?: unknown;
  schema_version?: unknown;
  pipeline?: { name?: unknown; sha256?: unknown };
  started_at?: unknown;
  last_full_at?: unknown;
  missing?: unknown;
  files?: { name?: unknown }[];
}

function parse(text: string | undefined): BaseManifest | undefined {
  try {
    const value = JSON.parse(text ?? '') as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Why the snapshot `name` is no base for this run, or undefined when it is one. */
function refusal(name: string, m: BaseManifest, wants: BaseWants): string | undefined {
  const which = `the earlier snapshot ${name}`;
  if (m.source_url !== wants.sourceUrl) return `${which} is of another source (${String(m.source_url)})`;
  if (m.schema_version !== wants.table.schemaVersion)
    return `${which} has schema version ${String(m.schema_version)}, this run writes ${wants.table.schemaVersion}`;
  if (m.pipeline?.name !== wants.pipeline?.name || m.pipeline?.sha256 !== wants.pipeline?.sha256)
    return `${which} was written by another pipeline, or by this one as its file was then`;
  const names = new Set((m.files ?? []).map((f) => f.name));
  if (!names.has(wants.table.files.parquet) && !names.has(wants.table.files.arrow))
    return `${which} holds no ${wants.table.files.parquet} or ${wants.table.files.arrow} (CSV is not a lossless base)`;
  if (!names.has(FILE_NAMES.normalisation))
    return `${which} holds no ${FILE_NAMES.normalisation} (its carried rows' normalisation counts)`;
  if (!names.has(FILE_NAMES.index))
    return `${which} holds no ${FILE_NAMES.index} (each carried row is checked against it)`;
  if (typeof m.missing !== 'number') return `${which}'s manifest does not say what it missed`;
  const lastFull = typeof m.last_full_at === 'string' ? m.last_full_at : m.started_at;
  const days = (wants.now.getTime() - Date.parse(String(lastFull))) / 86_400_000;
  const ago = Number.isFinite(days) ? days.toFixed(1) : '?';
  // A date after now (a clock set ahead, a manifest edited) would be copied by every run built on it: never trusted.
  if (days < 0) return `the last full pass is dated ${String(lastFull)}, in the future`;
  if (!(days < wants.fullEveryDays))
    return `the last full pass was ${ago} days ago (--full-every ${wants.fullEveryDays})`;
  return undefined;
}

/** Reads what the run needs of the base, each file checked against its manifest first. */
async function readBase(
  dir: string,
  name: string,
  manifest: BaseManifest,
  manifestSha256: string,
  table: Table,
): Promise<BaseSnapshot> {
  const names = new Set((manifest.files ?? []).map((f) => f.name));
  // Only the files its manifest lists (and so checks): a data file beside them it does not list is someone's.
  const imagesFile = join(dir, names.has(table.files.parquet) ? table.files.parquet : table.files.arrow);
  const collections = await baseCollections(dir);
  const rejectsPath = join(dir, IMAGES.files.rejects);
  if (names.has(IMAGES.files.rejects)) await verifySnapshotFile(rejectsPath);
  const rejects = names.has(IMAGES.files.rejects) ? await carriedRejectsOf(rejectsPath) : [];
  // Each row and reject counted into its collection; one of a collection the table does not hold is vouched for by no
  // collections list (the run reads that collection's own list), one of no collection by no list at all.
  const unlisted = new Set<number>();
  let [rows, unattributed] = [0, 0];
  const count = (cid: number | null) => {
    rows++;
    const collection = cid === null ? undefined : collections.get(cid);
    if (collection !== undefined) collection.rows++;
    else if (cid === null) unattributed++;
    else unlisted.add(cid);
  };
  await eachCollectionId(imagesFile, count);
  for (const reject of rejects) count(reject.collection);
  if (unattributed > 0)
    throw new Error(`${unattributed} of its records have no usable collection_id: no list shows they are still served`);
  await verifySnapshotFile(join(dir, FILE_NAMES.index)); // each carried row is checked against it (carry-over.ts)
  const normalisationPath = join(dir, FILE_NAMES.normalisation);
  await verifySnapshotFile(normalisationPath);
  const normalisation = await NormalisationByCollection.read(normalisationPath);
  const lastFullAt = String(typeof manifest.last_full_at === 'string' ? manifest.last_full_at : manifest.started_at);
  const missing = manifest.missing as number;
  const base = { name, dir, manifestSha256, imagesFile, lastFullAt, rejects, collections, normalisation };
  return { ...base, rows, unlisted, missing };
}

/**
 * The base's collections table, from the data file its manifest lists (resolve-snapshot-file.ts): each collection's
 * modify_date and number_of_images, its rows not yet counted.
 */
async function baseCollections(dir: string): Promise<Map<number, BaseCollection>> {
  const columns = ['id', 'modify_date', 'number_of_images'];
  const collections = new Map<number, BaseCollection>();
  const opened = await readSnapshotRows(dir, { table: COLLECTIONS, columns });
  try {
    for await (const batch of opened.batches) {
      const [id, modified, size] = columns.map((c) => numbers(batch, c));
      for (let i = 0; i < batch.numRows; i++)
        if (id![i] !== null) collections.set(id![i]!, { modified: modified![i]!, size: size![i]!, rows: 0 });
    }
  } finally {
    await opened.close();
  }
  return collections;
}

/** Calls `visit` with each of the base's image rows' collection_id (null where it has none), in file order. */
async function eachCollectionId(path: string, visit: (cid: number | null) => void): Promise<void> {
  const opened = await readSnapshotRows(path, { columns: ['collection_id'] });
  try {
    for await (const batch of opened.batches) for (const cid of numbers(batch, 'collection_id')) visit(cid);
  } finally {
    await opened.close();
  }
}

/**
 * A column of whole numbers (int64, or a timestamp as microseconds) as numbers, null where null: exact below 2^53,
 * which ids, counts and microseconds since 1970 are.
 */
function numbers(batch: RecordBatch, name: string): (number | null)[] {
  const vector = batch.getChild(name);
  const out = new Array<number | null>(batch.numRows).fill(null);
  if (vector === null) return out;
  let row = 0;
  for (const data of vector.data) {
    const values = data.values as ArrayLike<number | bigint>;
    for (let i = 0; i < data.length; i++, row++) if (data.getValid(i)) out[row] = Number(values[data.offset + i]);
  }
  return out;
}
