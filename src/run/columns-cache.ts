/**
 * A least-recently-used cache of staged pages' columns, bounded by the rows it holds (pages are 1 to 1,000 records):
 * the write reads each page about once, as the list is nearly in id order.
 */
import type { Checkpoint, StagedPage } from '../extract/checkpoint.js';
import { decodePageColumns, type PageColumns } from '../load/page-columns.js';
import type { Table } from '../schema/table.js';

/** A staged page's columns, and the row of each of its positions (-1 for a reject). */
export interface CachedColumns {
  columns: PageColumns;
  rowOf: Int32Array;
}

/** Staged pages' columns, most recently used last. */
export class ColumnsCache {
  private readonly pages = new Map<string, CachedColumns>();
  private rows = 0;

  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly table: Table,
    /** Rows held at most (whole pages, at least one page). */
    private readonly maxRows = 5_000,
  ) {}

  /** The columns of a staged page that has a valid record. */
  async get(page: StagedPage): Promise<CachedColumns> {
    const file = page.file!;
    let cached = this.pages.get(file);
    if (cached !== undefined) {
      this.pages.delete(file); // re-insert: Map order is recency
    } else {
      const columns = decodePageColumns(this.table, await this.checkpoint.readColumns(file));
      cached = { columns, rowOf: rowsOf(page.ids) };
      this.rows += columns.batch.numRows;
      for (const [oldest, held] of this.pages) {
        if (this.rows <= this.maxRows) break;
        this.pages.delete(oldest);
        this.rows -= held.columns.batch.numRows;
      }
    }
    this.pages.set(file, cached);
    return cached;
  }
}

/** Each position's row among the valid records (-1 for a record that broke the schema). */
function rowsOf(ids: readonly (number | null)[]): Int32Array {
  const rowOf = new Int32Array(ids.length);
  let row = 0;
  for (let position = 0; position < ids.length; position++) rowOf[position] = ids[position] === null ? -1 : row++;
  return rowOf;
}
