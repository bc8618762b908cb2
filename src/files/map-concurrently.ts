/**
 * The bounded concurrency stage: runs `work` on up to `limit` items at once and yields the results in input order.
 * A slow item at the head holds back the yielding, never the starting of others; results that finished early wait
 * (they are small). The first failure stops pulling, waits for what runs, and is thrown.
 */

/** Maps `source` through `work`, at most `limit` at a time, yielding in input order. */
export async function* mapConcurrently<T, R>(
  source: AsyncIterable<T>,
  limit: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const pool: Pool<T, R> = {
    ...{ iterator: source[Symbol.asyncIterator](), done: new Map(), running: new Set(), wake: undefined },
    ...{ started: 0, yielded: 0, exhausted: false, failed: false },
  };
  try {
    for (;;) {
      await startUpTo(pool, limit, work);
      const result = pool.done.get(pool.yielded);
      if (result !== undefined) {
        pool.done.delete(pool.yielded++);
        if ('error' in result) throw result.error;
        yield result.value;
        continue;
      }
      const failure = settledFailure(pool);
      if (failure !== undefined) throw failure.error;
      if (pool.exhausted && pool.running.size === 0 && pool.done.size === 0) return;
      await new Promise<void>((resolve) => (pool.wake = resolve));
      pool.wake = undefined;
    }
  } finally {
    await Promise.allSettled(pool.running);
    await pool.iterator.return?.();
  }
}

/** The items pulled and how their work stands. */
interface Pool<T, R> {
  iterator: AsyncIterator<T>;
  /** Results not yet yielded, by input index. */
  done: Map<number, { value: R } | { error: unknown }>;
  running: Set<Promise<void>>;
  /** Wakes the generator waiting for work to end. */
  wake: (() => void) | undefined;
  started: number;
  yielded: number;
  exhausted: boolean;
  failed: boolean;
}

/** Pulls items and starts their work until `limit` run, the source ends or a work failed. */
async function startUpTo<T, R>(pool: Pool<T, R>, limit: number, work: (item: T) => Promise<R>): Promise<void> {
  while (!pool.exhausted && !pool.failed && pool.running.size < limit) {
    const next = await pool.iterator.next();
    if (next.done === true) {
      pool.exhausted = true;
      break;
    }
    const index = pool.started++;
    const run: Promise<void> = work(next.value).then(
      (value) => void pool.done.set(index, { value }),
      (error: unknown) => {
        pool.failed = true;
        pool.done.set(index, { error });
      },
    );
    const tracked = run.finally(() => {
      pool.running.delete(tracked);
      pool.wake?.();
    });
    pool.running.add(tracked);
  }
}

/** The first failure in input order, once a work failed and nothing runs any more; else undefined. */
function settledFailure<T, R>(pool: Pool<T, R>): { error: unknown } | undefined {
  if (!pool.failed) return undefined;
  const first = [...pool.done.entries()].sort((a, b) => a[0] - b[0]).find(([, r]) => 'error' in r);
  if (first !== undefined && pool.running.size === 0) return first[1] as { error: unknown };
  return undefined;
}
