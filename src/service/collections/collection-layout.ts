/**
 * Which generated collection an id belongs to. Ids are cut into blocks of 8,192 and each block into
 * collections of whole 4-id segments, with sizes drawn from a long-tailed mix: most collections hold a
 * handful of maps, a few hold thousands (a collection never spans two blocks). A collection is a run
 * of nearby ids, as uploads are; its id is `block * 512 + ordinal + 1`, about one collection id per 16
 * image ids, as on neurovault.org.
 */
import { hash32, Random } from '../basics/random.js';

/** Ids per block. */
export const BLOCK_IDS = 8192;
/** Ids per segment, the smallest unit of a collection. */
const SEGMENT_IDS = 4;
const SEGMENTS = BLOCK_IDS / SEGMENT_IDS;
/** Collection ids reserved per block (a block holds about 80). */
const IDS_PER_BLOCK = 512;

// Collection sizes in segments (about 2 listed maps a segment): [[fewest, most], weight].
const SIZES: readonly (readonly [readonly [number, number], number])[] = [
  [[1, 2], 45],
  [[3, 8], 30],
  [[9, 40], 17],
  [[41, 200], 6.4],
  [[201, 600], 1.5],
  [[601, SEGMENTS], 0.1],
];

const STARTS_CACHE = new Map<string, Uint16Array>();
// The generator asks about rising ids: most lookups are in the block asked about last.
let last: { seed: number; block: number; starts: Uint16Array } = { seed: -1, block: -1, starts: new Uint16Array(0) };

/** The collection an id belongs to. */
export function collectionOf(seed: number, id: number): number {
  const block = Math.floor(id / BLOCK_IDS);
  const starts = blockStarts(seed, block);
  return block * IDS_PER_BLOCK + upperBound(starts, Math.floor((id % BLOCK_IDS) / SEGMENT_IDS));
}

/** The ids a collection covers, `[lo, hi)`; undefined for an id no generated collection has. */
export function collectionRange(seed: number, cid: number): { lo: number; hi: number } | undefined {
  if (!Number.isSafeInteger(cid) || cid < 1) return undefined;
  const block = Math.floor((cid - 1) / IDS_PER_BLOCK);
  const ordinal = (cid - 1) % IDS_PER_BLOCK;
  const starts = blockStarts(seed, block);
  if (ordinal >= starts.length) return undefined;
  const base = block * BLOCK_IDS;
  const end = ordinal + 1 < starts.length ? (starts[ordinal + 1] as number) : SEGMENTS;
  return { lo: base + (starts[ordinal] as number) * SEGMENT_IDS, hi: base + end * SEGMENT_IDS };
}

/** The first segment of each collection of a block, ascending (the first is 0). */
function blockStarts(seed: number, block: number): Uint16Array {
  if (last.seed === seed && last.block === block) return last.starts;
  const key = `${seed}:${block}`;
  let starts = STARTS_CACHE.get(key);
  if (starts === undefined) {
    if (STARTS_CACHE.size >= 4096) STARTS_CACHE.clear();
    const rng = new Random(hash32(seed, block, 0xb10c));
    const found: number[] = [];
    for (let segment = 0; segment < SEGMENTS && found.length < IDS_PER_BLOCK;) {
      found.push(segment);
      const [fewest, most] = rng.weighted(SIZES);
      segment += rng.int(fewest, most);
    }
    starts = Uint16Array.from(found);
    STARTS_CACHE.set(key, starts);
  }
  last = { seed, block, starts };
  return starts;
}

/** The number of starts not greater than `segment`: the ordinal of its collection, plus one. */
function upperBound(starts: Uint16Array, segment: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= segment) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
