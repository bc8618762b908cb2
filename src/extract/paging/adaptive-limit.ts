/** How many pages paging keeps in flight, adapted to how the server answers. */

/**
 * How many pages may be in flight: halved when the server pushes back (429) or errors pile up,
 * regained one at a time after a run of successes, never above the configured maximum.
 */
export class AdaptiveLimit {
  /** Pages allowed in flight now. */
  current: number;
  private successes = 0;
  private failures = 0;

  constructor(
    /** The configured maximum (--concurrency). */
    readonly max: number,
  ) {
    this.current = max;
  }

  /** A request failed; `throttled` when the server said 429. */
  failed(throttled: boolean): void {
    this.successes = 0;
    this.failures++;
    // A 429 halves at once; other errors halve when they come in a run (two in a row).
    if (throttled || this.failures >= 2) {
      this.current = Math.max(1, Math.floor(this.current / 2));
      this.failures = 0;
    }
  }

  /** A request succeeded: after `current * 4` calm successes in a row, allow one more in flight. */
  succeeded(): void {
    this.failures = 0;
    if (this.current >= this.max) return;
    if (++this.successes >= this.current * 4) {
      this.current++;
      this.successes = 0;
    }
  }
}
