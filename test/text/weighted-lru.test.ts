import { describe, expect, it } from 'vitest';
import { WeightedLru } from '../../src/text/weighted-lru.js';

describe('WeightedLru', () => {
  it('loads a value once while it is held, and drops the least recently used beyond its weight', async () => {
    const loads: string[] = [];
    const cache = new WeightedLru<string>(5, (value) => value.length);
    const get = (key: string) =>
      cache.get(key, () => {
        loads.push(key);
        return Promise.resolve(key.repeat(2));
      });
    await get('a'); // aa: 2
    await get('b'); // bb: 4
    await get('a'); // used again: b is now the oldest
    await get('c'); // cc: 6 > 5, b dropped
    await get('a');
    await get('b');
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });

  it('keeps the value last loaded even when it alone weighs more than the bound', async () => {
    const cache = new WeightedLru<string>(1, (value) => value.length);
    expect(await cache.get('big', () => Promise.resolve('xxxx'))).toBe('xxxx');
    let loaded = false;
    await cache.get('big', () => ((loaded = true), Promise.resolve('other')));
    expect(loaded).toBe(false);
  });
});
