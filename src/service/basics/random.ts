/** Deterministic hashing and pseudo-random numbers for the generator and the fault injector. */
import { murmurFinaliser } from '../../text/murmur-finaliser.js';

/** Mixes 32-bit words into one well-distributed unsigned 32-bit hash (murmur3 finaliser per word). */
export function hash32(...words: number[]): number {
  let h = 0x9e3779b9;
  for (const word of words) {
    let k = Math.imul(word | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    // Words above 2^32 (large ids, seeds) contribute their high part too.
    const high = Math.floor(word / 0x1_0000_0000);
    if (high !== 0) h = Math.imul(h ^ high, 0x85ebca6b);
  }
  return murmurFinaliser(h);
}

/** A seeded source of uniform numbers in [0, 1) (mulberry32), with small helpers. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next uniform number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One value of a weighted list of [value, weight] pairs. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of choices) total += weight;
    let roll = this.next() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return (choices[choices.length - 1] as readonly [T, number])[0];
  }
}
