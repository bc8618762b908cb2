/** murmur3's 32-bit finaliser (fmix32): every input bit flips each output bit with probability one half. */
export function murmurFinaliser(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
