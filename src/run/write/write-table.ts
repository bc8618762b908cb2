/**
 * Writing one table of a snapshot from its stream of validated records: normalise, the run's row stages, every
 * format and the rejects, counting what went by.
 */
import type { SinkResult } from '../../load/sink-result.js';
import { IMAGES } from '../../schema/columns.js';
import { emptyNormalisationCounts, type NormalisationCounts } from '../../schema/normalisation-counts.js';
import { rowCount, type Row, type RowBatch } from '../../schema/row.js';
import type { RowStage } from '../../transform/filter-rows.js';
import { normalise } from '../../transform/normalise.js';
import type { ValidBatch } from '../../transform/validate.js';
import { applyStages } from '../stage-batches.js';
import { writeOutputs, type WriteOutputsOptions } from './write-outputs.js';

/** How to write a table: its files (WriteOutputsOptions), and what happens to the rows on the way. */
export interface WriteTableOptions extends WriteOutputsOptions {
  /** Stages applied in order to the normalised rows before they are written; default none. */
  stages?: readonly RowStage[];
  /** Rows to keep for a preview of the output; default 0. */
  previewRows?: number;
}

/** What writing a table gave. */
export interface TableOutput {
  /** The files written: the data formats, and the rejects when there were any. */
  files: SinkResult[];
  /** What normalisation replaced. */
  normalisation: NormalisationCounts;
  /** Rows written. */
  written: number;
  /** Records rejected. */
  rejects: number;
  /** The first rows written, up to `previewRows`. */
  preview: Row[];
}

/** Normalises the valid records of `options.table` (default the images), applies the stages and writes every format. */
export async function writeTable(source: AsyncIterable<ValidBatch>, options: WriteTableOptions): Promise<TableOutput> {
  const normalisation = emptyNormalisationCounts();
  const written = await writeRows(normalise(source, normalisation, options.table ?? IMAGES), options);
  return { ...written, normalisation };
}

/**
 * Applies the stages to rows of `options.table` (default the images) and writes every format. Batches staged as
 * columns (their Arrow batch with them) are written as they are when there is no stage; a stage reads their rows.
 */
export async function writeRows(
  source: AsyncIterable<RowBatch>,
  options: WriteTableOptions,
): Promise<Omit<TableOutput, 'normalisation'>> {
  const preview: Row[] = [];
  const previewRows = options.previewRows ?? 0;
  const rows = applyStages(source, options.stages ?? []);
  const counts = { written: 0, rejects: 0 };
  const counted = async function* (batches: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
    for await (const batch of batches) {
      counts.written += rowCount(batch);
      counts.rejects += batch.rejects.length;
      if (preview.length < previewRows) preview.push(...batch.rows.slice(0, previewRows - preview.length));
      yield batch;
    }
  };
  const files = await writeOutputs(counted(rows), options);
  return { files, ...counts, preview };
}
