/**
 * The diff of two snapshots that both have an index (snapshot-index.ts): a merge of their sorted ids gives the added
 * and removed records, equal hashes the unchanged ones, and only the rows whose hashes differ are read from the data
 * files (from Parquet, only the row groups that hold them) and compared value by value by diffSnapshots, for the
 * fields that changed. The totals are those diffSnapshots gives for the whole files, but for a hash collision (one
 * chance in 2^64 for each record in both).
 */
import { readSnapshotRows, type SnapshotRows } from './read-snapshot-rows.js';
import { DiffError } from './diff-error.js';
import { diffSnapshots, type DiffTotals } from './diff-snapshots.js';
import type { SnapshotIndex } from './snapshot-index.js';

/** One side: where its rows are read from (a snapshot folder or data file, as readSnapshotRows takes), its index. */
export interface IndexedSnapshot {
  path: string;
  index: SnapshotIndex;
}

/** Which rows the two indexes say are the same record with other values: their positions in each file. */
interface Merged {
  added: number;
  removed: number;
  same: number;
  oldPositions: number[];
  newPositions: number[];
}

/** Merges two indexes by id. */
function mergeIndexes(old: SnapshotIndex, now: SnapshotIndex): Merged {
  const merged: Merged = { added: 0, removed: 0, same: 0, oldPositions: [], newPositions: [] };
  const [a, b, ha, hb] = [old.ids, now.ids, old.hashes, now.hashes];
  let [i, j] = [0, 0];
  while (i < old.rows && j < now.rows) {
    if (a[i]! < b[j]!) [merged.removed, i] = [merged.removed + 1, i + 1];
    else if (a[i]! > b[j]!) [merged.added, j] = [merged.added + 1, j + 1];
    else {
      if (ha[2 * i] === hb[2 * j] && ha[2 * i + 1] === hb[2 * j + 1]) merged.same++;
      else {
        merged.oldPositions.push(i);
        merged.newPositions.push(j);
      }
      [i, j] = [i + 1, j + 1];
    }
  }
  merged.removed += old.rows - i;
  merged.added += now.rows - j;
  return merged;
}

/** The totals of the diff of `older` and `newer` (see the module comment); a DiffError when a file cannot be read. */
export async function diffByIndex(older: IndexedSnapshot, newer: IndexedSnapshot): Promise<DiffTotals> {
  const merged = mergeIndexes(older.index, newer.index);
  const totals: DiffTotals = {
    added: merged.added,
    removed: merged.removed,
    changed: 0,
    unchanged: merged.same,
    oldRows: older.index.rows,
    newRows: newer.index.rows,
    fields: new Map(),
  };
  if (merged.oldPositions.length === 0) return totals;
  const sides: SnapshotRows[] = [];
  try {
    for (const [side, positions] of [
      [older, merged.oldPositions],
      [newer, merged.newPositions],
    ] as const) {
      const rows = await readSnapshotRows(side.path, { positions });
      sides.push(rows);
      if (rows.rows !== undefined && rows.rows !== side.index.rows) throw mismatch(rows.path, side.index.rows);
    }
    const diff = diffSnapshots(sides[0]!, sides[1]!);
    for await (const entries of diff) void entries; // the totals are what is wanted
    const { added, removed, changed, unchanged, fields } = diff.totals;
    // Rows read at the same places of both indexes are of the same ids, unless an index is not of its data file.
    if (added + removed > 0) throw mismatch(`${sides[0]!.path} or ${sides[1]!.path}`, undefined);
    return { ...totals, changed, unchanged: totals.unchanged + unchanged, fields };
  } finally {
    for (const side of sides) await side.close();
  }
}

function mismatch(path: string, rows: number | undefined): DiffError {
  const count = rows === undefined ? '' : `: the index has ${rows} rows`;
  return new DiffError({ code: 'DIFF_UNREADABLE', message: `diff: ${path} does not match its images.index${count}` });
}
