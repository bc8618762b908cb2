/**
 * The write's source: the staged records in ascending id order, then the rejects, in fixed-size batches, each a
 * batch of Arrow columns gathered from the pages' staged columns (each page was parsed once, when it was staged).
 */
import type { RecordBatch } from 'apache-arrow';
import type { Checkpoint } from '../../extract/staging/checkpoint.js';
import type { RecordIndex } from '../../extract/staging/record-index.js';
import { replayRejects } from '../../extract/staging/replay-rejects.js';
import type { LoadBatch } from '../../load/arrow/arrow-batches.js';
import { ArrowGatherer } from '../../load/arrow/arrow-gather.js';
import { columnsBatch } from '../../load/arrow/rows-of-batch.js';
import type { CsvRecords } from '../../load/csv/csv-records.js';
import type { PageColumns, StagedColumns } from '../../load/arrow/page-columns.js';
import type { Reject } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import type { NormalisationByCollection } from './normalisation-by-collection.js';
import { StagedRows } from './staged-rows.js';

/** How the write reads the staging folder. */
export interface ReplayOptions {
  /** Rows per batch; fixed so that files depend only on the data. Default 1,000. */
  batchSize?: number;
  /**
   * Rows of staged pages' columns kept in memory: whole pages read in place (at least one), and as many rows of pages
   * spilled by id range (staged-rows.ts); default 5,000.
   */
  cacheRows?: number;
  /**
   * Whether the batches' Arrow batches are read (Parquet, Arrow, a tap of Arrow batches): gathered then, batch after
   * batch; else a batch's rows are read straight from the staged pages, and only if something reads them. Default
   * true.
   */
  arrow?: boolean;
  /**
   * What the write reads of each staged page (what this run staged): a page staged for a run that consumed less is
   * encoded again from its staged body. Default the table's columns.
   */
  consumed?: StagedColumns;
}

/**
 * Yields every valid record once as a row of `table`, ascending by id, then every reject once, each batch at most
 * `batchSize` long; adds to `counts`, by collection, what normalisation replaced in the rows yielded.
 */
export async function* replayColumns(
  index: RecordIndex,
  checkpoint: Checkpoint,
  table: Table,
  counts: NormalisationByCollection,
  options: ReplayOptions = {},
): AsyncIterable<LoadBatch> {
  const batchSize = options.batchSize ?? 1_000;
  const gatherer = new ArrowGatherer(table);
  let picks = newPicks();
  let first = 0;
  const consumed = options.consumed ?? { rows: true };
  const batchOf = (rejects: Reject[] = []): LoadBatch => {
    const source = { url: 'staging', offset: first };
    const columns = options.arrow === false ? undefined : gatherer.gather(picks);
    // every page the write takes holds what it consumes (StagedRows): rows, or for a write that reads none, none
    const picked = { ...picks, rowless: !consumed.rows };
    return columnsBatch(source, picked, columns, rejects, table, csvRecordsOf(gatherer, picks, table));
  };
  const staged = await StagedRows.open(index, checkpoint, table, options.cacheRows ?? 5_000, consumed);
  try {
    let rank = 0;
    for (const [pageIndex, position] of index.inIdOrder()) {
      const { columns, row } = await staged.get(rank++, pageIndex, position);
      picks.batches.push(columns.batch);
      picks.rows.push(row);
      const csv = columns.csv ?? 'mixed';
      picks.csv = picks.rows.length === 1 || stagedAlike(picks.csv, csv) ? csv : 'mixed';
      const replaced = columns.replaced(row);
      if (replaced !== null) counts.addText(columns.collection(row), replaced);
      if (picks.rows.length === batchSize) {
        yield batchOf();
        first += batchSize;
        picks = newPicks();
      }
    }
  } finally {
    await staged.close();
  }
  if (picks.rows.length > 0) yield batchOf();
  first += picks.rows.length;
  picks = newPicks();
  for await (const rejects of replayRejects(index, checkpoint, batchSize)) yield batchOf(rejects);
}

/**
 * The rows picked for a batch, and whether their pages staged their CSV records, all with one neutralise setting in
 * one column (stagedAlike), or not all (`mixed`: a resumed run that wrote other formats, or with another setting,
 * before).
 */
interface Picks {
  batches: RecordBatch[];
  rows: number[];
  csv?: StagedCsvColumn | 'mixed';
}

type StagedCsvColumn = NonNullable<PageColumns['csv']>;

/** Whether pages staged their CSV records alike: with one neutralise setting, in one column. */
function stagedAlike(a: StagedCsvColumn | 'mixed' | undefined, b: StagedCsvColumn | 'mixed'): boolean {
  if (a === undefined || a === 'mixed' || b === 'mixed') return a === b;
  return a.neutraliseFormulas === b.neutraliseFormulas && a.column === b.column;
}

/** The picked rows' staged CSV records, when their pages all staged them alike. */
function csvRecordsOf(gatherer: ArrowGatherer, picks: Picks, table: Table): CsvRecords | undefined {
  if (picks.csv === undefined || picks.csv === 'mixed' || picks.rows.length === 0) return undefined;
  const records = gatherer.text(picks, picks.csv.column);
  return { bytes: records.values, neutraliseFormulas: picks.csv.neutraliseFormulas, table };
}

function newPicks(): Picks {
  return { batches: [], rows: [] };
}
