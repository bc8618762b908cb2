/**
 * A least-recently-used cache of staged pages' columns, bounded by the rows it holds (pages are 1 to 1,000 records):
 * the write reads each page about once, as the list is nearly in id order.
 */
import type { Checkpoint } from '../../extract/staging/checkpoint.js';
import type { StagedPage } from '../../extract/staging/journal.js';
import { decodePageColumns, type PageColumns } from '../../load/arrow/page-columns.js';
import type { Table } from '../../schema/table.js';
import { WeightedLru } from '../../text/weighted-lru.js';

/** A staged page's columns, and the row of each of its positions (-1 for a reject). */
export interface CachedColumns {
  columns: PageColumns;
  rowOf: Int32Array;
}

/** Staged pages' columns, most recently used last. */
export class ColumnsCache {
  private readonly pages: WeightedLru<CachedColumns>;

  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly table: Table,
    /** Rows held at most (whole pages, at least one page). */
    maxRows = 5_000,
  ) {
    this.pages = new WeightedLru(maxRows, (page) => page.columns.batch.numRows);
  }

  /** The columns of a staged page that has a valid record. */
  async get(page: StagedPage): Promise<CachedColumns> {
    return this.pages.get(page.file!, async () => {
      const columns = decodePageColumns(this.table, await this.checkpoint.readColumns(page.file!));
      return { columns, rowOf: rowsOf(page.ids) };
    });
  }
}

/** Each position's row among the valid records (-1 for a record that broke the schema). */
function rowsOf(ids: readonly (number | null)[]): Int32Array {
  const rowOf = new Int32Array(ids.length);
  let row = 0;
  for (let position = 0; position < ids.length; position++) rowOf[position] = ids[position] === null ? -1 : row++;
  return rowOf;
}
