/**
 * A bounded stream fed by pushes: the producer awaits `push` while `highWaterMark` items wait to be read, so a fast
 * producer runs at the consumer's pace and memory holds at most that many items. The producer ends it with `end`
 * or `fail`; a consumer that stops reading (its loop threw or broke) makes every later push resolve to false.
 */
export class PushStream<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private stopped = false;
  private reader: (() => void) | undefined;
  private writers: (() => void)[] = [];

  constructor(private readonly highWaterMark = 2) {}

  /** Whether the consumer stopped reading before the end. */
  get consumerStopped(): boolean {
    return this.stopped;
  }

  /** Adds an item; resolves once there is room for another, to false if the consumer stopped reading. */
  async push(item: T): Promise<boolean> {
    if (this.stopped) return false;
    if (this.ended || this.failure) throw new Error('push-stream: push after end');
    this.items.push(item);
    this.wakeReader();
    while (this.items.length >= this.highWaterMark && !this.stopped) await new Promise<void>((resolve) => this.writers.push(resolve));
    return !this.stopped;
  }

  /** No more items: the consumer's loop ends after the waiting ones. */
  end(): void {
    this.ended = true;
    this.wakeReader();
  }

  /** The consumer's next read throws `error` (items still waiting are dropped). */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.items.length = 0;
    this.wakeReader();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (this.failure) throw this.failure.error;
          if (this.items.length > 0) {
            const value = this.items.shift()!;
            this.wakeWriters();
            return { done: false, value };
          }
          if (this.ended || this.stopped) return { done: true, value: undefined };
          await new Promise<void>((resolve) => (this.reader = resolve));
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        if (!this.ended) this.stopped = true;
        this.items.length = 0;
        this.wakeWriters();
        return { done: true, value: undefined };
      },
    };
  }

  private wakeReader(): void {
    const reader = this.reader;
    this.reader = undefined;
    reader?.();
  }

  private wakeWriters(): void {
    const writers = this.writers;
    this.writers = [];
    for (const resolve of writers) resolve();
  }
}
