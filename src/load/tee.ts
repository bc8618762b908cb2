/**
 * Splits one async stream into several in lock-step, so that several sinks consume one extraction holding one item at a
 * time. A consumer that stops early stops the source and fails the others; read all consumers concurrently, as one that
 * is never read holds the others at the first item.
 */
import { LoadError } from '../text/load-error.js';

/** Splits `source` into `n` streams that each see every item in order; see the module comment for the rules. */
export function tee<T>(source: AsyncIterable<T>, n: number): AsyncIterable<T>[] {
  if (!Number.isInteger(n) || n < 1)
    throw LoadError.of('LOAD_INVALID_OPTION', `load: tee needs a positive integer count, got ${n}`);
  const hub = new TeeHub(source, n);
  return Array.from({ length: n }, (_, i) => hub.consumer(i));
}

type Outcome<T> = { kind: 'item'; value: T } | { kind: 'done' } | { kind: 'error'; error: unknown };

class TeeHub<T> {
  private readonly iterator: AsyncIterator<T>;
  /** How many items each consumer has taken. */
  private readonly taken: number[];
  /** Consumers still reading (not stopped). */
  private readonly active: boolean[];
  /** Items pulled from the source so far. */
  private pulled = 0;
  /** The last pulled item, or how the source ended. */
  private current: Outcome<T> | undefined;
  private pulling: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;
  private waiters: (() => void)[] = [];
  private released = false;

  constructor(source: AsyncIterable<T>, n: number) {
    this.iterator = source[Symbol.asyncIterator]();
    this.taken = new Array<number>(n).fill(0);
    this.active = new Array<boolean>(n).fill(true);
  }

  consumer(i: number): AsyncIterableIterator<T> {
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => this.next(i),
      return: async (): Promise<IteratorResult<T>> => {
        await this.stop(i, undefined);
        return { done: true, value: undefined };
      },
      throw: async (error?: unknown): Promise<IteratorResult<T>> => {
        await this.stop(i, error);
        throw error;
      },
    };
  }

  private async next(i: number): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      if (!this.active[i]) return { done: true, value: undefined };
      if (this.taken[i]! < this.pulled) return this.take(i);
      if (this.current !== undefined && this.current.kind !== 'item') return this.take(i);
      if (this.everyoneTookCurrent()) {
        this.pulling ??= this.pull();
        await this.pulling;
      } else {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
    }
  }

  private take(i: number): IteratorResult<T> {
    const outcome = this.current!;
    if (outcome.kind === 'error') throw outcome.error;
    if (outcome.kind === 'done') return { done: true, value: undefined };
    this.taken[i]!++;
    if (this.everyoneTookCurrent()) this.wake();
    return { done: false, value: outcome.value };
  }

  private everyoneTookCurrent(): boolean {
    return this.taken.every((t, j) => !this.active[j] || t === this.pulled);
  }

  private async pull(): Promise<void> {
    try {
      const result = await this.iterator.next();
      if (this.failure) return;
      if (result.done) {
        this.current = { kind: 'done' };
        this.released = true;
      } else {
        this.current = { kind: 'item', value: result.value };
        this.pulled++;
      }
    } catch (error) {
      this.current = { kind: 'error', error };
      this.released = true; // a source that threw is finished
    } finally {
      this.pulling = undefined;
      this.wake();
    }
  }

  /** A consumer stopped; if the stream is not over, the whole tee fails and the source is released. */
  private async stop(i: number, error: unknown): Promise<void> {
    if (!this.active[i]) return;
    this.active[i] = false;
    const over = this.current !== undefined && this.current.kind !== 'item';
    if (over || this.failure) return;
    this.failure = {
      error: LoadError.of(
        'LOAD_TEE_CONSUMER_STOPPED',
        `load: tee consumer ${i + 1} of ${this.taken.length} stopped after ${this.taken[i]} ` +
          `items, before the end of the stream`,
        error,
      ),
    };
    this.wake();
    if (!this.released) {
      this.released = true;
      try {
        await this.iterator.return?.();
      } catch {
        // The consumers already fail with the stop error; a failing release adds nothing a caller can act on.
      }
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
