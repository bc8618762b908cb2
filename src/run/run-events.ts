/** The events of a run's publishing, after those of its extraction (extract-events.ts). */
import type { ExtractEvent } from '../extract/paging/extract-events.js';

/** Publishing starts: the staged records are written to the output files in id order. */
export interface PublishStartEvent {
  type: 'publish-start';
  /** Records read back from staging (rows plus rejects); rows stages filter out are not written. */
  records: number;
  /** The data formats written. */
  formats: string[];
}

/** A batch of rows went to the writers. */
export interface PublishProgressEvent {
  type: 'publish-progress';
  /** Rows written so far. */
  rows: number;
  /** Rejects written so far (rejects.ndjson). */
  rejects: number;
}

/** Every output file is written (the manifest follows). */
export interface PublishEndEvent {
  type: 'publish-end';
  /** Rows in the data files. */
  rows: number;
  /** Records in rejects.ndjson. */
  rejects: number;
  /** The files written: name, format, rows and bytes. */
  files: { name: string; format: string; rows: number; bytes: number }[];
}

/**
 * What a `--snapshot` run builds on, once decided: an earlier snapshot (incremental: only what changed since is read),
 * or nothing (a full pass, and why).
 */
export interface RunKindEvent {
  type: 'run-kind';
  kind: 'incremental' | 'full';
  /** The snapshot folder an incremental run builds on. */
  base?: string;
  /** Why the run makes a full pass, one line. */
  why?: string;
}

/**
 * A `--snapshot` run could not finish what an earlier run left beside the folder it publishes into: a pruning
 * (`.img-etl-pruning-<name>`, prune-folder.ts) or an unfinished publication in another snapshot folder
 * (`.img-etl-publish`, publish-folder.ts): it stays, and the run goes on.
 */
export interface LeftoverEvent {
  type: 'leftover';
  /** One line: the path that could not be removed or finished, why, and what stays. */
  message: string;
}

/** What a run tells its caller while it runs: extraction's events (extract-events.ts), then publishing's. */
export type RunEvent =
  ExtractEvent | RunKindEvent | LeftoverEvent | PublishStartEvent | PublishProgressEvent | PublishEndEvent;
