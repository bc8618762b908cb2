/** Seeded fault decisions for data requests (which fault, which mutations, which row order) and for file requests. */
import { hash32, Random } from '../basics/random.js';
import type { FaultKind, PlannedFileRequest, PlannedRequest } from '../service-options.js';
import type { ResolvedFaults } from '../service-options.js';

/** Everything decided for one data request before it is answered. */
export type FaultDecision = ReturnType<typeof decideFaults>;

/**
 * Decides the faults of data request number `n`. Each request draws from its own generator seeded
 * by (faultSeed, n), so decisions do not depend on how concurrent requests interleave.
 */
export function decideFaults(faults: ResolvedFaults, request: PlannedRequest) {
  const rng = new Random(hash32(faults.faultSeed, request.n, 0xfa17));
  const roll = rng.next();
  const decision = {
    /** What the response does. */
    kind: 'none' as FaultKind,
    /** Records to insert, and to delete, before counting. */
    insert: rng.chance(faults.insertRate) ? faults.insertCount : 0,
    delete: rng.chance(faults.deleteRate) ? faults.deleteCount : 0,
    /** The row order changes for this request. */
    unstable: rng.chance(faults.unstableOrderRate),
    /** Where a rotated scan starts, as a fraction of the list. */
    rotation: rng.next(),
    /** Share of the body sent before a truncated response is cut off (0.1 to 0.9). */
    truncateAt: 0.1 + 0.8 * rng.next(),
    /** Records to edit in place before answering; drawn last, so that the other decisions stay as they were. */
    edit: rng.chance(faults.editRate) ? faults.editCount : 0,
    /** Random numbers for mutation positions, private to this request. */
    random: new Random(hash32(faults.faultSeed, request.n, 0x1115)),
  };
  const planned = faults.plan?.(request);
  if (planned !== undefined) {
    decision.kind = planned;
    return decision;
  }
  decision.kind = pickByRate(roll, [
    ['500', faults.rate500],
    ['502', faults.rate502],
    ['504', faults.rate504],
    ['429', faults.rate429],
    ['truncate', faults.rateTruncate],
    ['reset', faults.rateReset],
  ]);
  return decision;
}

/** Whether a record is an orphan: counted in `count` but dropped from pages (its polymorphic child row is missing). */
export function isOrphan(faults: ResolvedFaults, id: number): boolean {
  return faults.orphanRate > 0 && hash32(faults.faultSeed, id, 0x0f) / 4294967296 < faults.orphanRate;
}

/**
 * Decides the fault of file request number `n` from the file rates (or the file plan), seeded by (faultSeed, n): what
 * it does, and where a cut body stops (0.1 to 0.9 of it).
 */
export function decideFileFault(faults: ResolvedFaults, request: PlannedFileRequest) {
  const rng = new Random(hash32(faults.faultSeed, request.n, 0xf11e));
  const roll = rng.next();
  const cutAt = 0.1 + 0.8 * rng.next();
  const planned = faults.filePlan?.(request);
  if (planned !== undefined) return { kind: planned, cutAt };
  const kind = pickByRate(roll, [
    ['truncate', faults.fileTruncateRate],
    ['wrong-length', faults.fileWrongLengthRate],
    ['corrupt', faults.fileCorruptRate],
    ['ignore-range', faults.fileIgnoreRangeRate],
  ]);
  return { kind, cutAt };
}

/** The kind whose share of [0, 1) the roll falls in, the rates laid end to end; 'none' past them all. */
function pickByRate<K extends string>(roll: number, rates: readonly (readonly [K, number])[]): K | 'none' {
  let threshold = 0;
  for (const [kind, rate] of rates) {
    threshold += rate;
    if (roll < threshold) return kind;
  }
  return 'none';
}
