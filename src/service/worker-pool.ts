/** A fixed number of workers, like gunicorn's: a request holds one while it is served, the rest wait in line. */

/** Counters of a worker pool. */
export interface WorkerStats {
  /** Requests holding a worker now. */
  active: number;
  /** Most requests that ever held a worker at the same time. */
  peakActive: number;
  /** Requests waiting for a worker now. */
  queued: number;
  /** Most requests that ever waited at the same time. */
  peakQueued: number;
}

/** Hands out at most `size` workers at once (0 or Infinity: no limit) in arrival order. */
export class WorkerPool {
  private size: number;
  private readonly waiting: { grant: () => void; fail: (err: Error) => void }[] = [];
  private readonly counters: WorkerStats = { active: 0, peakActive: 0, queued: 0, peakQueued: 0 };

  constructor(size: number) {
    this.size = size || Infinity;
  }

  /** Changes the number of workers; waiting requests start at once if the pool grew. */
  resize(size: number): void {
    this.size = size || Infinity;
    this.drain();
  }

  /** Waits for a worker and resolves to the function that gives it back. */
  acquire(): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        this.counters.active++;
        this.counters.peakActive = Math.max(this.counters.peakActive, this.counters.active);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.counters.active--;
          this.drain();
        });
      };
      if (this.counters.active < this.size && this.waiting.length === 0) {
        grant();
        return;
      }
      this.waiting.push({ grant, fail: reject });
      this.counters.queued = this.waiting.length;
      this.counters.peakQueued = Math.max(this.counters.peakQueued, this.counters.queued);
    });
  }

  /** Rejects every waiting request (the service is closing). */
  abortWaiting(reason: Error): void {
    for (const waiter of this.waiting.splice(0)) waiter.fail(reason);
    this.counters.queued = 0;
  }

  /** A copy of the counters. */
  stats(): WorkerStats {
    return { ...this.counters };
  }

  /** Forgets the peaks (keeps the current counts). */
  resetPeaks(): void {
    this.counters.peakActive = this.counters.active;
    this.counters.peakQueued = this.counters.queued;
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.counters.active < this.size) {
      (this.waiting.shift() as { grant: () => void }).grant();
      this.counters.queued = this.waiting.length;
    }
  }
}
