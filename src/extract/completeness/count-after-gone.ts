/**
 * The image list's count once reconciliation left records out as gone: asked again, and believed only as far as the
 * records left out explain its fall, so that records deleted that the run never held stay counted.
 */
import { ExtractError } from '../paging/extract-error.js';

/** Asks the image list for its `count` now (see image-count.ts). */
export type Recount = () => Promise<number>;

/**
 * The count the run holds its `received` records to: `expected` (the image list's count at the end of the pass) when
 * reconciliation left no record out as gone (`dropped`) or the run holds that many; else the image list's count asked
 * once more, but never less than `expected` less `dropped`. A count that cannot be read keeps `expected`.
 */
export async function countAfterGone(
  { dropped, expected, received }: { dropped: number; expected: number; received: number },
  recount?: Recount,
): Promise<number> {
  if (recount === undefined || dropped === 0 || received >= expected) return expected;
  try {
    return Math.max(await recount(), expected - dropped);
  } catch (err) {
    if (err instanceof ExtractError && err.code !== 'ABORTED') return expected;
    throw err;
  }
}
