/**
 * Reading one side of a diff batch by batch: the current batch's ids, checked to be non-null safe integers in
 * strictly ascending order across batches, its columns in the order of the comparison plan, and the values that name a
 * record to a reader of the diff (its table's diffContext).
 */
import { makeVector, type Data, type RecordBatch, type Vector } from 'apache-arrow';
import type { Column } from '../schema/column-type.js';
import type { RowValue } from '../schema/row.js';
import { DiffError } from '../snapshot/diff-error.js';
import { valueAt } from '../snapshot/rows-from-batch.js';
import { ID_COLUMN, type DiffSide } from './diff-side.js';

/** One side's current batch: its ids (checked ascending) and the plan's columns; `row` is the join's position in it. */
export class SideCursor {
  /** Ids of the current batch. */
  ids: number[] = [];
  /** The current batch's column data, by plan position (undefined where the side lacks the column). */
  columns: (Data | undefined)[] = [];
  /** Current row in the batch (the join advances it). */
  row = 0;
  /** Rows in the current batch. */
  length = 0;
  /** Rows read so far. */
  rowsRead = 0;
  private readonly iterator: AsyncIterator<RecordBatch>;
  private readonly types: Map<string, string>;
  private lastId = -Infinity;
  private done = false;
  /** The current batch's columns of `context` (undefined where the side lacks one). */
  private contextVectors: (Vector | undefined)[] = [];

  /** Reads `side`, keeping the columns `names` (the comparison plan's order) and `context` of each batch. */
  constructor(
    private readonly side: DiffSide,
    private readonly names: string[],
    private readonly context: readonly Column[] = [],
  ) {
    this.iterator = side.batches[Symbol.asyncIterator]();
    this.types = new Map(side.schema.fields.map((f) => [f.name, String(f.type)]));
  }

  /** Moves to the next batch with rows; false at the end. */
  async fill(): Promise<boolean> {
    while (!this.done) {
      const next = await this.iterator.next();
      if (next.done === true) {
        this.done = true;
        break;
      }
      const batch = next.value;
      if (batch.numRows === 0) continue;
      this.load(batch);
      return true;
    }
    this.row = this.length = 0;
    return false;
  }

  /** Stops the side's stream early (releasing its file); nothing happens after its end. */
  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.iterator.return?.();
  }

  private load(batch: RecordBatch): void {
    const index = new Map<string, number>();
    batch.schema.fields.forEach((f, k) => {
      const expected = this.types.get(f.name);
      if (expected !== undefined && expected !== String(f.type)) {
        throw DiffError.of(
          'DIFF_UNREADABLE',
          `diff: ${this.side.path}: column "${f.name}" is ${f.type} in a batch of a file whose ` +
            `schema says ${expected}`,
        );
      }
      index.set(f.name, k);
    });
    const column = (name: string): Data | undefined => {
      const k = index.get(name);
      return k === undefined ? undefined : batch.data.children[k];
    };
    this.columns = this.names.map(column);
    this.contextVectors = this.context.map((c) => column(c.name) && makeVector(column(c.name)!));
    const ids = column(ID_COLUMN);
    if (ids === undefined)
      throw DiffError.of('DIFF_BAD_ID', `diff: ${this.side.path}: a batch has no "${ID_COLUMN}" column`);
    this.ids = this.readIds(ids, batch.numRows);
    this.row = 0;
    this.length = batch.numRows;
    this.rowsRead += batch.numRows;
  }

  /**
   * The context columns' values of the current row, by name: null where the side lacks the column or holds a value
   * not of its type (a data file of another writer), so that the diff's file keeps its types.
   */
  contextOf(): Record<string, RowValue> {
    const values: Record<string, RowValue> = {};
    this.context.forEach((c, k) => {
      const vector = this.contextVectors[k];
      const value = vector === undefined ? null : valueAt(vector, this.row, c);
      values[c.name] = value !== null && c.type.holds(value) ? value : null;
    });
    return values;
  }

  private readIds(data: Data, rows: number): number[] {
    const values = data.values as ArrayLike<number | bigint>;
    const ids = new Array<number>(rows);
    for (let r = 0; r < rows; r++) {
      const at = this.rowsRead + r + 1;
      if (!data.getValid(r)) throw DiffError.of('DIFF_BAD_ID', `diff: ${this.side.path}: row ${at} has a null id`);
      const raw = values[r]!;
      const id = Number(raw);
      if (!Number.isSafeInteger(id))
        throw DiffError.of('DIFF_BAD_ID', `diff: ${this.side.path}: row ${at} has id ${raw}, beyond the safe integers`);
      if (id <= this.lastId) {
        throw DiffError.of(
          'DIFF_BAD_ID',
          `diff: ${this.side.path} is not in ascending id order: row ${at} has id ${id} after ` +
            `id ${this.lastId}${id === this.lastId ? ' (a repeated id)' : ''}`,
        );
      }
      ids[r] = this.lastId = id;
    }
    return ids;
  }
}
