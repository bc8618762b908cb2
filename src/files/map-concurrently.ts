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
  const iterator = source[Symbol.asyncIterator]();
  const done = new Map<number, { value: R } | { error: unknown }>();
  const running = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  let started = 0;
  let yielded = 0;
  let exhausted = false;
  let failed = false;
  try {
    for (;;) {
      while (!exhausted && !failed && running.size < limit) {
        const next = await iterator.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        const index = started++;
        const run: Promise<void> = work(next.value).then(
          (value) => void done.set(index, { value }),
          (error: unknown) => {
            failed = true;
            done.set(index, { error });
          },
        );
        const tracked = run.finally(() => {
          running.delete(tracked);
          wake?.();
        });
        running.add(tracked);
      }
      const result = done.get(yielded);
      if (result !== undefined) {
        done.delete(yielded++);
        if ('error' in result) throw result.error;
        yield result.value;
        continue;
      }
      if (failed) {
        const first = [...done.entries()].sort((a, b) => a[0] - b[0]).find(([, r]) => 'error' in r);
        if (first !== undefined && running.size === 0) throw (first[1] as { error: unknown }).error;
      }
      if (exhausted && running.size === 0 && done.size === 0) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    await Promise.allSettled(running);
    await iterator.return?.();
  }
}
