/** The report's streaming histograms: bins of a numeric column kept in memory that does not grow with the rows. */

/** Width of a linear bin (percentages from 0 to 100 in ten bins). */
const LINEAR_WIDTH = 10;
const LINEAR_BINS = 100 / LINEAR_WIDTH;

/** The log2 bin of `v` ≥ 0: 0 for [0, 1), k + 1 for [2^k, 2^(k+1)); exact where Math.log2 rounds near a power. */
export function log2Bin(v: number): number {
  if (v < 1) return 0;
  let k = Math.floor(Math.log2(v));
  if (2 ** k > v) k--;
  else if (2 ** (k + 1) <= v) k++;
  return k + 1;
}

/** A streaming histogram of one numeric column: count, nulls, range and bins, in memory that never grows with rows. */
export class Histogram {
  private count = 0;
  private nulls = 0;
  private min = Infinity;
  private max = -Infinity;
  private below = 0;
  private above = 0;
  private readonly bins: number[] = [];

  /** `log2` bins for counts and sizes, `linear` bins of 10 from 0 to 100 for percentages. */
  constructor(private readonly scale: 'log2' | 'linear') {
    if (scale === 'linear') this.bins = new Array<number>(LINEAR_BINS).fill(0);
  }

  /** Adds one value; null counts as a null. */
  add(v: number | null): void {
    if (v === null) {
      this.nulls++;
      return;
    }
    this.count++;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    if (v < 0) this.below++;
    else if (this.scale === 'log2') {
      const k = log2Bin(v);
      while (this.bins.length <= k) this.bins.push(0);
      this.bins[k]!++;
    } else if (v > 100) this.above++;
    else this.bins[v === 100 ? LINEAR_BINS - 1 : Math.floor(v / LINEAR_WIDTH)]!++;
  }

  /** The distribution so far. */
  result() {
    let bins = this.bins.map((count, k) =>
      this.scale === 'linear'
        ? { from: k * LINEAR_WIDTH, to: (k + 1) * LINEAR_WIDTH, count }
        : { from: k === 0 ? 0 : 2 ** (k - 1), to: 2 ** k, count },
    );
    // Doubling bins run from the first that holds a value: sizes from 1 KiB would otherwise start with ten empty bins.
    if (this.scale === 'log2')
      bins = bins.slice(
        Math.max(
          0,
          bins.findIndex((b) => b.count > 0),
        ),
      );
    const empty = this.count === 0;
    const [min, max] = empty ? [null, null] : [this.min, this.max];
    const { count, nulls, scale, below, above } = this;
    return { count, nulls, min, max, scale, bins, below, above };
  }
}
