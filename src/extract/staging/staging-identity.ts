/**
 * What a staging folder belongs to (its run.json), and whether a run may resume it: the same source, page size and
 * pipeline, this staging format, and not too old.
 */
import { DEFAULT_MAX_RESUME_AGE_MS } from '../defaults.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { onPath } from '../../load/file-system/file-system-error.js';
import { CheckpointError } from './checkpoint-error.js';
import { emptyStaging, IDENTITY, readJson } from './staging-files.js';

/**
 * The layout of the staging folder and its journal: each staged page's journal line holds its checksum and size, and
 * its valid records' columns are staged beside it with their own. Staging of another format is discarded, not resumed.
 */
export const STAGING_FORMAT = 6;

/** When a run may resume a staging folder, and when it starts afresh. */
export interface ResumeOptions {
  /** Discard what an earlier run left; default false. */
  fresh?: boolean;
  /** Staging of a run started longer ago than this is discarded; default DEFAULT_MAX_RESUME_AGE_MS. */
  maxAgeMs?: number;
  /** The time now; default the clock. */
  now?: Date;
}

/** What a staging folder belongs to; a run resumes only staging of the same identity. */
const checkpointIdentity = z.object({
  /** The list endpoint paged. */
  source_url: z.string(),
  /** The page size asked for. */
  page_size: z.int(),
  /** When the run first started, ISO 8601 (kept from the first attempt when a run resumes; not compared). */
  started_at: z.string(),
  /** The pipeline the run writes, by name and the sha256 of its file; absent for a run of no pipeline. */
  pipeline: z.object({ name: z.string(), sha256: z.string() }).optional(),
  /** The schema version of the table its pages' columns are rows of (absent when none are staged). */
  schema_version: z.string().optional(),
});
export type CheckpointIdentity = z.infer<typeof checkpointIdentity>;

/** run.json: the identity, and the STAGING_FORMAT of the img-etl that wrote it. */
const runJson = checkpointIdentity.extend({ format: z.int() });

/**
 * The identity the staging folder `dir` keeps: the unfinished run's own when it is this run's and not too old, else
 * `identity` in an emptied folder (a notice says why). Throws CheckpointError for another run's staging, however old,
 * unless `options.fresh`: only its own command (or --fresh) discards it. The staging of this run's pipeline as its file
 * was before a change is no other command's: no run can finish it, so it is discarded too.
 */
export async function keptIdentity(
  dir: string,
  identity: CheckpointIdentity,
  options: ResumeOptions,
  notices: string[],
): Promise<CheckpointIdentity> {
  // A run.json that is not an identity (null, `{}`, a format that is no number) is one that does not parse.
  const existing = runJson.safeParse(await readJson(join(dir, IDENTITY))).data;
  const other = existing !== undefined && !sameRun(existing, identity) && options.fresh !== true;
  if (other && !ofEarlierFile(existing, identity))
    throw CheckpointError.of(
      'MISMATCH',
      `staging: ${dir} holds an unfinished run of ${runOf(existing)}; run that command again ` +
        `to finish it, or add --fresh to discard it`,
    );
  const stale =
    existing === undefined || options.fresh === true
      ? undefined
      : other
        ? `holds an unfinished run of pipeline ${existing.pipeline?.name} as its file was then, which no run of the ` +
          'file as it is now can finish'
        : staleness(existing, options);
  if (stale !== undefined) notices.push(`staging: ${dir} ${stale}; discarded it and started afresh`);
  if (existing !== undefined && stale === undefined && options.fresh !== true) return existing;
  await emptyStaging(dir);
  await writeIdentity(dir, identity);
  return identity;
}

/** Writes the staging's identity (run.json), of this STAGING_FORMAT. */
export async function writeIdentity(dir: string, identity: CheckpointIdentity): Promise<void> {
  const path = join(dir, IDENTITY);
  await onPath(path, () => writeFile(path, JSON.stringify({ ...identity, format: STAGING_FORMAT }) + '\n'));
}

/** Whether staging of identity `a` is the unfinished run of `b`: the same source, page size and pipeline. */
function sameRun(a: CheckpointIdentity, b: CheckpointIdentity): boolean {
  return (
    a.source_url === b.source_url &&
    a.page_size === b.page_size &&
    a.pipeline?.name === b.pipeline?.name &&
    a.pipeline?.sha256 === b.pipeline?.sha256 &&
    a.schema_version === b.schema_version
  );
}

/** Whether staging of identity `a` is of run `b` but for its pipeline's file, as it was before a change. */
function ofEarlierFile(a: CheckpointIdentity, b: CheckpointIdentity): boolean {
  const { pipeline, schema_version } = b;
  return (
    a.pipeline !== undefined && a.pipeline.name === pipeline?.name && sameRun({ ...a, pipeline, schema_version }, b)
  );
}

/** The run a staging folder holds, in words: its source, page size and pipeline. */
function runOf(identity: CheckpointIdentity): string {
  const { pipeline } = identity;
  const of = pipeline === undefined ? '' : ` by pipeline ${pipeline.name}`;
  return `${identity.source_url} with page size ${identity.page_size}${of}`;
}

/** Why an earlier run's staging is not to be resumed (another format, too old, no start time), or undefined. */
function staleness(existing: z.infer<typeof runJson>, options: ResumeOptions): string | undefined {
  const { format, started_at: startedAt } = existing;
  if (format !== STAGING_FORMAT)
    return `was written by another version of img-etl (staging format ${format}, this one reads ${STAGING_FORMAT})`;
  const started = Date.parse(startedAt);
  if (!Number.isFinite(started)) return 'does not say when its run started';
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_RESUME_AGE_MS;
  const now = options.now ?? new Date();
  const ageMs = now.getTime() - started;
  // Dated after now (the clock was moved back since, or run.json came from elsewhere): its age is unknown.
  if (ageMs < 0)
    return `holds a run started ${startedAt}, after the time now (${now.toISOString()}): its age is unknown`;
  if (ageMs > maxAgeMs)
    return `holds a run started ${startedAt}, ${hours(ageMs)} ago, past the resume limit of ${hours(maxAgeMs)}`;
  return undefined;
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return `${Number.isInteger(h) ? h : h.toFixed(1)} h`;
}
