import { describe, expect, it } from 'vitest';
import { tee } from '../../src/load/tee.js';
import { LoadError } from '../../src/text/load-error.js';

/** A source that records how far it was pulled and whether it was released. */
function countingSource(n: number, failAt?: number) {
  const state = { pulled: 0, released: false, finished: false };
  async function* generate() {
    try {
      for (let i = 0; i < n; i++) {
        if (i === failAt) throw new Error(`source broke at ${i}`);
        state.pulled = i + 1;
        yield i;
      }
      state.finished = true;
    } finally {
      state.released = true;
    }
  }
  return { source: generate(), state };
}

async function drain<T>(
  stream: AsyncIterable<T>,
  onItem: (item: T) => Promise<void> | void = () => undefined,
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) {
    await onItem(item);
    out.push(item);
  }
  return out;
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('tee', () => {
  it('gives every consumer every item in order', async () => {
    const { source, state } = countingSource(50);
    const streams = tee(source, 3);
    const results = await Promise.all(streams.map((s, k) => drain(s, async () => (k === 1 ? tick() : undefined))));
    for (const r of results) expect(r).toEqual([...new Array(50).keys()]);
    expect(state).toEqual({ pulled: 50, released: true, finished: true });
  });

  it('advances the source only when every consumer took the current item (one item buffered)', async () => {
    const { source, state } = countingSource(10);
    const [fast, slow] = tee(source, 2);
    const seenByFast: number[] = [];
    const pulledWhenFastSaw: number[] = [];
    const fastDone = drain(fast!, (i) => {
      seenByFast.push(i);
      pulledWhenFastSaw.push(state.pulled);
    });
    const slowIterator = slow![Symbol.asyncIterator]();
    for (let i = 0; i < 10; i++) {
      await tick();
      await tick();
      expect(seenByFast.length).toBeLessThanOrEqual(i + 1); // the fast one waits for the slow one
      expect(state.pulled).toBeLessThanOrEqual(i + 1);
      expect(await slowIterator.next()).toEqual({ done: false, value: i });
    }
    expect(await slowIterator.next()).toEqual({ done: true, value: undefined });
    await fastDone;
    expect(pulledWhenFastSaw).toEqual([...new Array(10).keys()].map((i) => i + 1));
  });

  it('releases the source and fails the other consumers when one consumer throws', async () => {
    const { source, state } = countingSource(100);
    const [a, b, c] = tee(source, 3);
    const failing = drain(a!, (i) => {
      if (i === 5) throw new Error('sink a failed');
    });
    const others = [drain(b!).catch((e: unknown) => e), drain(c!, tick).catch((e: unknown) => e)];
    await expect(failing).rejects.toThrow('sink a failed');
    for (const other of others) {
      const error = await other;
      expect(error).toBeInstanceOf(LoadError);
      expect((error as LoadError).code).toBe('LOAD_TEE_CONSUMER_STOPPED');
      expect((error as LoadError).message).toBe(
        'load: tee consumer 1 of 3 stopped after 6 items, before the end of the stream',
      );
    }
    expect(state.released).toBe(true);
    expect(state.finished).toBe(false);
    expect(state.pulled).toBeLessThanOrEqual(7);
  });

  it('fails the others, never hangs, when a consumer breaks out early without an error', async () => {
    const { source, state } = countingSource(100);
    const [a, b] = tee(source, 2);
    const seen: number[] = [];
    const early = (async () => {
      for await (const i of a!) {
        if (i === 2) break;
        seen.push(i);
      }
    })();
    const other = drain(b!).catch((e: unknown) => e);
    await early;
    expect(seen).toEqual([0, 1]);
    expect(await other).toMatchObject({ code: 'LOAD_TEE_CONSUMER_STOPPED' });
    expect(state.released).toBe(true);
  });

  it('gives the cause when a consumer is stopped with throw()', async () => {
    const { source } = countingSource(10);
    const [a, b] = tee(source, 2);
    const cause = new Error('disk full');
    await a![Symbol.asyncIterator]().next();
    await expect(a![Symbol.asyncIterator]().throw!(cause)).rejects.toBe(cause);
    const error = (await drain(b!).catch((e: unknown) => e)) as LoadError;
    expect(error.code).toBe('LOAD_TEE_CONSUMER_STOPPED');
    expect(error.cause).toBe(cause);
  });

  it('passes a source error to every consumer', async () => {
    const { source, state } = countingSource(10, 4);
    const streams = tee(source, 3);
    const outcomes = await Promise.allSettled(streams.map((s) => drain(s)));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(((outcome as PromiseRejectedResult).reason as Error).message).toBe('source broke at 4');
    }
    expect(state.released).toBe(true);
  });

  it('lets a consumer stop after the end without failing the others', async () => {
    const { source } = countingSource(3);
    const [a, b] = tee(source, 2);
    const [ra, rb] = await Promise.all([drain(a!), drain(b!)]);
    expect(ra).toEqual([0, 1, 2]);
    expect(rb).toEqual([0, 1, 2]);
    await a![Symbol.asyncIterator]().return!();
  });

  it('works with one consumer and refuses a count below one', async () => {
    const { source } = countingSource(4);
    const [only] = tee(source, 1);
    expect(await drain(only!)).toEqual([0, 1, 2, 3]);
    expect(() => tee(countingSource(1).source, 0)).toThrow(LoadError);
    expect(() => tee(countingSource(1).source, 1.5)).toThrow(/load: tee needs a positive integer count, got 1.5/);
  });
});
