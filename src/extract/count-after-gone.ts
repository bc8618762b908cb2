/**
 * The image list's count a full run holds its records to once collections it read are found gone after the pass (their
 * own lists answered 403 or 404): the count at the end of the pass still names their records, which the run leaves
 * out, so it asks the image list for its count once more. The new count is believed only as far as the gone
 * collections' records explain its fall: records deleted from a collection that is still listed stay counted.
 */
import { ExtractError } from './extract-error.js';

/** Asks the image list for its `count` now (see image-count.ts). */
export type Recount = () => Promise<number>;

/**
 * The count the run holds its `received` records to: `expected` (the image list's count at the end of the pass) when
 * no collection read was gone (`dropped`: the records of those the run left out) or the run holds that many; else the
 * image list's count asked once more, but never less than `expected` less `dropped`. A count that cannot be read keeps
 * `expected`.
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
