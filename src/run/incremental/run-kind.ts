/**
 * Whether a `--snapshot` run is incremental, building on the latest snapshot of its base folder, or makes a full pass,
 * and why: decided once, before anything is fetched, and kept in the journal, so that a resumed run keeps to it (an
 * earlier process's base that is no longer there discards the staging and decides again).
 */
import type { Checkpoint } from '../../extract/staging/checkpoint.js';
import type { JournalBase } from '../../extract/staging/journal.js';
import { chooseBase, type BaseSnapshot, type BaseWants } from './base-snapshot.js';
import { DEFAULT_FULL_EVERY_DAYS } from '../../extract/defaults.js';

/** An incremental run and its base, or a full one and why (`why` empty when the run is no `--snapshot`). */
export type RunKind = { base: BaseSnapshot } | { full: string };

/** What deciding takes. */
export interface RunKindOptions extends Omit<BaseWants, 'chosen' | 'fullEveryDays'> {
  /** The base folder of `--snapshot` runs; undefined for a run into its `--out` alone (always full). */
  baseDir: string | undefined;
  /** `--full`: a full pass whatever the base. */
  full: boolean;
  /** `--full-every`; default DEFAULT_FULL_EVERY_DAYS. */
  fullEveryDays?: number;
  /** Whether the pipeline has stages: its rows then pass through them, which carried rows did already. */
  stages: boolean;
}

/** Decides the run's kind (or takes the one its journal holds) and records it. */
export async function runKind(checkpoint: Checkpoint, options: RunKindOptions): Promise<RunKind> {
  const { baseDir } = options;
  if (baseDir === undefined) return { full: '' };
  const kept = checkpoint.entries.find((e): e is JournalBase => e.type === 'base');
  const wants = { ...options, fullEveryDays: options.fullEveryDays ?? DEFAULT_FULL_EVERY_DAYS };
  if (kept?.name === null) return { full: kept.why };
  if (kept !== undefined) {
    // A killed incremental run resumed with --full: what it staged was read for an incremental run; start afresh.
    const chosen = { name: kept.name, manifest_sha256: kept.manifest_sha256 };
    const again = wants.full ? { full: '--full' } : await chooseBase(baseDir, { ...wants, chosen });
    if ('base' in again) return again;
    await checkpoint.discard(checkpoint.identity, `staging: ${again.full}: discarded the staging and started afresh`);
  }
  const kind = await decide(baseDir, wants);
  const marker: JournalBase =
    'base' in kind
      ? { type: 'base', name: kind.base.name, manifest_sha256: kind.base.manifestSha256 }
      : { type: 'base', name: null, why: kind.full };
  await checkpoint.mark(marker);
  return kind;
}

/** The kind a run would have now (what `--dry-run` says), without staging anything. */
export async function plannedKind(options: RunKindOptions): Promise<RunKind> {
  if (options.baseDir === undefined) return { full: '' };
  return decide(options.baseDir, { ...options, fullEveryDays: options.fullEveryDays ?? DEFAULT_FULL_EVERY_DAYS });
}

/** The kind of a run that has not decided yet. */
async function decide(baseDir: string, wants: RunKindOptions & { fullEveryDays: number }): Promise<RunKind> {
  if (wants.full) return { full: '--full' };
  if (wants.stages) return { full: "the pipeline has stages, which the earlier snapshot's rows went through already" };
  return chooseBase(baseDir, wants);
}
