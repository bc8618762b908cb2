/** A read of a table without ORDER BY: rows moved to the end for good ('move'), or a scan from elsewhere ('rotate'). */
import type { FaultDecision } from './faults.js';
import type { Random } from '../basics/random.js';
import type { ServiceContext } from '../service-context.js';

/** A table whose scan order the unstable-order knobs change: it moves up to `count` random rows to the end. */
interface UnorderedTable {
  moveToEnd(count: number, random: Random): number[];
}

/**
 * Applies the request's unstable-order decision to a table of `count` rows; returns the rows moved and the row the scan
 * starts at.
 */
export function unorderedScan(
  ctx: ServiceContext,
  decision: FaultDecision,
  table: UnorderedTable,
  count: number,
): { moved: number; start: number } {
  const { faults, stats } = ctx;
  const moving = decision.unstable && faults.unstableOrderMode === 'move';
  const moved = moving ? table.moveToEnd(faults.moveCount, decision.random).length : 0;
  if (!decision.unstable || faults.unstableOrderMode !== 'rotate' || count <= 1) return { moved, start: 0 };
  stats.rotatedScans++;
  return { moved, start: Math.floor(decision.rotation * count) };
}
