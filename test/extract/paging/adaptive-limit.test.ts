import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../../src/extract/paging/adaptive-limit.js';

describe('AdaptiveLimit', () => {
  it('halves at once on a 429, down to one page in flight', () => {
    const limit = new AdaptiveLimit(8);
    limit.failed(true);
    expect(limit.current).toBe(4);
    limit.failed(true);
    limit.failed(true);
    limit.failed(true);
    expect(limit.current).toBe(1);
  });

  it('halves on a run of two other errors, not on one', () => {
    const limit = new AdaptiveLimit(8);
    limit.failed(false);
    expect(limit.current).toBe(8);
    limit.failed(false);
    expect(limit.current).toBe(4);
  });

  it('a success between errors resets the run', () => {
    const limit = new AdaptiveLimit(8);
    limit.failed(false);
    limit.succeeded();
    limit.failed(false);
    expect(limit.current).toBe(8);
  });

  it('regains one page after current * 4 calm successes, never above the maximum', () => {
    const limit = new AdaptiveLimit(4);
    limit.failed(true); // 2
    for (let i = 0; i < 7; i++) limit.succeeded();
    expect(limit.current).toBe(2);
    limit.succeeded();
    expect(limit.current).toBe(3);
    for (let i = 0; i < 100; i++) limit.succeeded();
    expect(limit.current).toBe(4);
  });
});
