/** The served row order of a data set: generated ids (sparse, mostly rising) with the given records mixed in. */
import { hash32, Random } from '../basics/random.js';

/** Ids past this appear even in small generated data sets, as in the real listing. */
export const SPARSE_ID_FLOOR = 900_000;

/** What the generator does with an id it draws: list it, set it aside (a private collection's), or pass over it. */
export type IdUse = 'list' | 'hide' | 'skip';

/**
 * The ids of `count` generated records: `listed` in served order, `hidden` (in private collections) ascending. Ids
 * rise in runs with small gaps and a few large jumps (and jump past 900,000 near the end); about 2% of rows are swapped
 * with a row up to 150 places later, as rows that moved in the heap of a table read without ORDER BY. `use` is asked
 * about each id drawn, in rising order: hidden ids are drawn like listed ones but set aside (they exist and are never
 * listed); a skipped id (given records, their collections) is passed over for the next one.
 */
export function generatedIdOrder(count: number, seed: number, use: (id: number) => IdUse = () => 'list') {
  const ids = new Uint32Array(count);
  const hidden: number[] = [];
  const rng = new Random(hash32(seed, 0x1d5));
  const jumpAt = count >= 20 ? Math.floor(count * 0.97) : -1;
  let id = 1 + rng.int(0, 63);
  for (let i = 0; i < count;) {
    if (i === jumpAt && id < SPARSE_ID_FLOOR) id = SPARSE_ID_FLOOR + 1 + rng.int(0, 5_000);
    let kind = use(id);
    while (kind === 'skip') kind = use(++id);
    if (kind === 'hide') hidden.push(id);
    else ids[i++] = id;
    const roll = rng.next();
    id += roll < 0.7 ? 1 : roll < 0.9 ? 2 : roll < 0.999 ? rng.int(3, 10) : rng.int(11, 500);
  }
  for (let i = 0; i < count; i++) {
    if (rng.next() < 0.02) {
      const j = Math.min(count - 1, i + rng.int(1, 150));
      [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
    }
  }
  return { listed: ids, hidden: Uint32Array.from(hidden) };
}

/** Spreads the given records' ids evenly through the generated ones, keeping both in their own order. */
export function mixIdOrders(given: readonly number[], generated: Uint32Array): Uint32Array {
  const total = given.length + generated.length;
  const mixed = new Uint32Array(total);
  let g = 0;
  let d = 0;
  let nextGiven = given.length > 0 ? Math.floor((0.5 * total) / given.length) : total;
  for (let i = 0; i < total; i++) {
    if (i === nextGiven || g >= generated.length) {
      mixed[i] = given[d++] as number;
      nextGiven = d < given.length ? Math.floor(((d + 0.5) * total) / given.length) : total;
    } else {
      mixed[i] = generated[g++] as number;
    }
  }
  return mixed;
}
