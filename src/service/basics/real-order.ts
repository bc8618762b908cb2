/** The order of a list read without ORDER BY from a table whose rows were written, moved and rewritten for years. */
import type { Random } from './random.js';

/**
 * How a list is served: 'id' keeps the data set's own order (ids rising, a few rows a few places off); 'real' serves
 * it as the real listing comes (realOrder).
 */
export type ListOrder = 'id' | 'real';

/**
 * The ids as the real listing serves them: runs of ascending ids, 10 to 400 long (log-uniform), the runs shuffled, and
 * about 2% of rows swapped with another row anywhere in the list. The same `random` gives the same order.
 */
export function realOrder(ids: ArrayLike<number>, random: Random): Uint32Array {
  const sorted = Uint32Array.from(ids).sort();
  const runs: Uint32Array[] = [];
  for (let at = 0; at < sorted.length;) {
    const length = Math.round(10 * 40 ** random.next());
    runs.push(sorted.subarray(at, at + length));
    at += length;
  }
  for (let i = runs.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [runs[i], runs[j]] = [runs[j] as Uint32Array, runs[i] as Uint32Array];
  }
  const order = new Uint32Array(sorted.length);
  let filled = 0;
  for (const run of runs) {
    order.set(run, filled);
    filled += run.length;
  }
  for (let k = Math.floor(order.length / 100); k > 0; k--) {
    const [a, b] = [random.int(0, order.length - 1), random.int(0, order.length - 1)];
    [order[a], order[b]] = [order[b] as number, order[a] as number];
  }
  return order;
}
