/**
 * A tap on a run: something the runner is given that consumes the images' batches beside the writers and may add files
 * to the snapshot, published with the rest and listed in its manifest (the report, the snapshot index, a user's own
 * sink).
 */
import type { RecordBatch } from 'apache-arrow';
import type { SinkResult } from '../load/sink-result.js';
import type { RowBatch } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import type { Format } from '../snapshot/formats.js';
import type { Manifest } from './publish/manifest.js';

/** What the runner tells a tap about the run: where it writes and what. */
export interface RunTapContext {
  /** The folder the run's files are written into before they are published together: a tap writes its files here. */
  pending: string;
  /** The folder the files are published to: the snapshot folder with `snapshot`, else `baseDir`. */
  dataDir: string;
  /** The run's output folder (`--out`); with `snapshot`, the folder of the snapshots and `latest`. */
  baseDir: string;
  /** The data formats the run writes. */
  formats: readonly Format[];
  /** The snapshot's name: the data folder's base name. */
  name: string;
  /** The images table the run writes (a pipeline's columns included): what the row batches are rows of. */
  table: Table;
  /** Whether the CSV files put a `'` before text that starts like a formula (csv-field.ts). */
  neutraliseFormulas: boolean;
  /** The run's cancellation: a tap's long work before the commit (the report's drift) stops once it is aborted. */
  signal?: AbortSignal;
}

/**
 * What a tap does in one run; every part is optional. The streams are fed through the same tee as the writers (see
 * tee.ts): a tap that consumes one reads it to the end, or the writers stop. Files a tap writes into `pending` and
 * resolves to are listed in the manifest and published with the data, atomically: names img-etl owns (FILE_NAMES),
 * and a user's sink's files (format `sink`, see row-sink.ts). publish-folder.ts moves no other name a manifest lists.
 */
export interface OpenRunTap {
  /** Consumes the images' row batches (rows and rejects, after the run's stages) beside the writers. */
  rows?: (batches: AsyncIterable<RowBatch>) => Promise<void>;
  /** Consumes the images' Arrow record batches, built once for the Parquet and Arrow writers and the Arrow taps. */
  arrow?: (batches: AsyncIterable<RecordBatch>) => Promise<void>;
  /** Once the images are written (before the collections): adds files; they follow the images in the manifest. */
  afterImages?: () => Promise<SinkResult[]>;
  /** Once the manifest is built, before it is committed: adds files; they end the manifest's list. */
  beforeCommit?: (manifest: Manifest) => Promise<SinkResult[]>;
  /** Writing the images failed: releases what the tap holds (the pending folder is removed with the run). */
  abort?: () => Promise<void>;
}

/** A tap the runner is given (`runSnapshot({ taps })`): opened once a run's records are all fetched. */
export interface RunTap {
  /** Starts the tap for one run, before its images are written. */
  open(run: RunTapContext): Promise<OpenRunTap>;
}
