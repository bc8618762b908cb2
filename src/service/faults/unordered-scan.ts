/** A read of a table without ORDER BY: rows moved to the end for good ('move'), or a scan from elsewhere ('rotate'). */
import type { FaultDecision } from './faults.js';
import type { Random } from '../basics/random.js';
import type { ServiceContext } from '../service-context.js';

/** A table whose scan order the unstable-order knobs change. */
export interface UnorderedTable {
  /** Rows in the table now. */
  readonly rows: number;
  /** Moves up to `count` random rows to the end; returns them. */
  moveToEnd(count: number, random: Random): number[];
}

/** Applies the request's unstable-order decision to a table; returns the rows moved and the row the scan starts at. */
export function unorderedScan(
  ctx: ServiceContext,
  decision: FaultDecision,
  table: UnorderedTable,
): { moved: number; start: number } {
  const { faults, stats } = ctx;
  const moving = decision.unstable && faults.unstableOrderMode === 'move';
  const moved = moving ? table.moveToEnd(faults.moveCount, decision.random).length : 0;
  const count = table.rows;
  if (!decision.unstable || faults.unstableOrderMode !== 'rotate' || count <= 1) return { moved, start: 0 };
  stats.rotatedScans++;
  return { moved, start: Math.floor(decision.rotation * count) };
}
