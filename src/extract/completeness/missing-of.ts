/**
 * The one verdict on the records a run lacks, whatever its method: the manifest's `missing`, its proof and every line
 * that states it derive from it.
 */

/** What a verdict on the records a run lacks rests on. */
export interface Shortfall {
  /** Records the collections read count that their own lists did not serve. */
  unserved: number;
  /** The image list's `count` at the end of the pass, and the distinct records the run holds. */
  expected: number;
  received: number;
}

/**
 * Records a run lacks: the larger of what the collections read did not serve and the image list's `count` less the
 * records held. The collections vouch only for what they show and count: records in a collection the collections list
 * does not show, added as `count` grew, or left out of a collection's own list are missing all the same.
 */
export function missingOf(shortfall: Shortfall): number {
  return Math.max(0, shortfall.unserved, shortfall.expected - shortfall.received);
}
