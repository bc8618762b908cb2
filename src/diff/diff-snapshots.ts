/**
 * Comparing two snapshots by id: a streaming merge join of two id-ordered streams of record batches. Memory holds
 * one batch of each side and one page of entries, whatever the number of rows; ids must be strictly ascending on
 * each side (img-etl writes them so), which is checked as the rows go by.
 */
import type { Column } from '../schema/column-type.js';
import { IMAGES } from '../schema/columns.js';
import type { RowValue } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import { DiffError } from '../snapshot/diff-error.js';
import type { DiffSide } from './diff-side.js';
import { planColumns, type PlanColumn, type SchemaDiff } from './plan-columns.js';
import { SideCursor } from './side-cursor.js';

/** How a record differs between the old and the new snapshot. */
export type DiffChange = 'added' | 'removed' | 'changed';

/** One record that differs. */
export interface DiffEntry {
  /** The record's id. */
  id: number;
  /** added: only in the new snapshot; removed: only in the old one; changed: in both, with different values. */
  change: DiffChange;
  /** Names of the columns whose values differ, in output column order; empty for added and removed records. */
  changed_fields: string[];
  /**
   * The values of the table's `diffContext` columns (images: collection_id and name) that tell a reader which record
   * it is: the new snapshot's, the old one's for a removed record; null where that side lacks the column.
   */
  context: Record<string, RowValue>;
}

/** Counts of a diff, final once its entries were read to the end. */
export interface DiffTotals {
  /** Records only in the new snapshot. */
  added: number;
  /** Records only in the old snapshot. */
  removed: number;
  /** Records in both with at least one differing value. */
  changed: number;
  /** Records in both with every value equal. */
  unchanged: number;
  /** Rows read from the old snapshot. */
  oldRows: number;
  /** Rows read from the new snapshot. */
  newRows: number;
  /** For each column, the changed records that differ in it; columns that never differ are absent. */
  fields: Map<string, number>;
}

/** Options of `diffSnapshots`. */
export interface DiffOptions {
  /** Entries per yielded batch (the last may have fewer); default 1000. */
  batchSize?: number;
  /** The table both sides are of, which orders the changed fields; default the images. */
  table?: Table;
  /** Stops the diff between two batches of a side: the iteration throws the signal's reason; default none. */
  signal?: AbortSignal;
}

const DEFAULT_BATCH_SIZE = 1000;

/**
 * A diff of two snapshots: iterate it once for page-sized batches of entries in ascending id order; then `totals` is
 * final.
 */
export class SnapshotDiff implements AsyncIterable<DiffEntry[]> {
  /** How the columns line up; known before the rows are read. */
  readonly schema: SchemaDiff;
  /** Counts so far; final once the iteration ended. */
  readonly totals: DiffTotals = {
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    oldRows: 0,
    newRows: 0,
    fields: new Map(),
  };
  private readonly plan: PlanColumn[];
  private readonly context: readonly Column[];
  private started = false;

  constructor(
    private readonly oldSide: DiffSide,
    private readonly newSide: DiffSide,
    private readonly batchSize: number,
    table: Table = IMAGES,
    private readonly signal?: AbortSignal,
  ) {
    const { schema, plan } = planColumns(oldSide, newSide, table);
    this.schema = schema;
    this.plan = plan;
    this.context = table.diffContextColumns;
  }

  [Symbol.asyncIterator](): AsyncIterator<DiffEntry[]> {
    if (this.started)
      throw DiffError.of(
        'DIFF_INVALID_OPTION',
        `diff: the diff of ${this.oldSide.path} and ${this.newSide.path} can be read only once`,
      );
    this.started = true;
    return this.entries();
  }

  private async *entries(): AsyncGenerator<DiffEntry[]> {
    const names = this.plan.map((c) => c.name);
    const old = new SideCursor(this.oldSide, names, this.context);
    const now = new SideCursor(this.newSide, names, this.context);
    const counts = new Array<number>(this.plan.length).fill(0);
    const totals = this.totals;
    let pending: DiffEntry[] = [];
    try {
      for (;;) {
        this.signal?.throwIfAborted();
        const oldLive = old.row < old.length || (await old.fill());
        const newLive = now.row < now.length || (await now.fill());
        if (!oldLive && !newLive) break;
        if (!newLive) totals.removed += takeRest(old, 'removed', pending);
        else if (!oldLive) totals.added += takeRest(now, 'added', pending);
        else this.mergeLoaded(old, now, counts, pending);
        totals.oldRows = old.rowsRead;
        totals.newRows = now.rowsRead;
        while (pending.length >= this.batchSize) {
          yield pending.slice(0, this.batchSize);
          pending = pending.slice(this.batchSize);
        }
      }
      if (pending.length > 0) yield pending;
    } finally {
      for (let k = 0; k < this.plan.length; k++) if (counts[k]! > 0) totals.fields.set(this.plan[k]!.name, counts[k]!);
      await Promise.all([old.close(), now.close()]);
    }
  }

  /** Merges the rows both cursors hold by id into `pending`, until one side's loaded rows run out. */
  private mergeLoaded(old: SideCursor, now: SideCursor, counts: number[], pending: DiffEntry[]): void {
    const totals = this.totals;
    while (old.row < old.length && now.row < now.length) {
      const a = old.ids[old.row]!;
      const b = now.ids[now.row]!;
      if (a < b) {
        pending.push({ id: a, change: 'removed', changed_fields: [], context: old.contextOf() });
        totals.removed++;
        old.row++;
      } else if (a > b) {
        pending.push({ id: b, change: 'added', changed_fields: [], context: now.contextOf() });
        totals.added++;
        now.row++;
      } else {
        const fields = this.compareRow(old, now, counts);
        if (fields === undefined) totals.unchanged++;
        else {
          pending.push({ id: a, change: 'changed', changed_fields: fields, context: now.contextOf() });
          totals.changed++;
        }
        old.row++;
        now.row++;
      }
    }
  }

  /** The names of the columns that differ between the current rows of both cursors, or undefined when none does. */
  private compareRow(old: SideCursor, now: SideCursor, counts: number[]): string[] | undefined {
    let fields: string[] | undefined;
    for (let k = 0; k < this.plan.length; k++) {
      const { name, equal } = this.plan[k]!;
      if (equal !== undefined && equal(old.columns[k]!, old.row, now.columns[k]!, now.row)) continue;
      (fields ??= []).push(name);
      counts[k]!++;
    }
    return fields;
  }
}

/** Takes the rows a cursor holds still as `change` entries into `pending` (the other side has ended); how many. */
function takeRest(cursor: SideCursor, change: 'added' | 'removed', pending: DiffEntry[]): number {
  const rows = cursor.length - cursor.row;
  for (; cursor.row < cursor.length; cursor.row++)
    pending.push({ id: cursor.ids[cursor.row]!, change, changed_fields: [], context: cursor.contextOf() });
  return rows;
}

/**
 * Compares two snapshots by id (see SnapshotDiff); throws a DiffError at once when a side has no integer `id` column or
 * a column type diff cannot compare.
 */
export function diffSnapshots(oldSide: DiffSide, newSide: DiffSide, options: DiffOptions = {}): SnapshotDiff {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw DiffError.of('DIFF_INVALID_OPTION', `diff: batchSize must be a positive integer, got ${batchSize}`);
  return new SnapshotDiff(oldSide, newSide, batchSize, options.table, options.signal);
}
