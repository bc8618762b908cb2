import { describe, expect, it } from 'vitest';
import { PushStream } from '../../src/run/push-stream.js';

describe('PushStream', () => {
  it('hands items over in order and holds the producer at the high-water mark', async () => {
    const stream = new PushStream<number>(2);
    let pushed = 0;
    const producer = (async () => {
      for (let i = 0; i < 5; i++) {
        await stream.push(i);
        pushed++;
      }
      stream.end();
    })();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pushed).toBe(1); // the second push waits: two items are queued
    const seen: number[] = [];
    for await (const item of stream) seen.push(item);
    await producer;
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('fail: the reader throws the error', async () => {
    const stream = new PushStream<number>(4);
    await stream.push(1);
    stream.fail(new Error('stop'));
    await expect((async () => {
      for await (const _ of stream) void _;
    })()).rejects.toThrow('stop');
  });

  it('a reader that stops early releases a waiting producer, and later pushes say false', async () => {
    const stream = new PushStream<number>(1);
    const first = stream.push(1);
    const reader = stream[Symbol.asyncIterator]();
    expect(await reader.next()).toEqual({ done: false, value: 1 });
    expect(await first).toBe(true);
    const waiting = stream.push(2);
    await reader.return!();
    expect(await waiting).toBe(false);
    expect(await stream.push(3)).toBe(false);
    expect(stream.consumerStopped).toBe(true);
  });
});
