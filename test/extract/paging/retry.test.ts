import { describe, expect, it } from 'vitest';
import { ExtractError } from '../../../src/extract/paging/extract-error.js';
import { parseRetryAfter } from '../../../src/extract/paging/retry-after.js';
import { retryDelay, withRetry } from '../../../src/extract/paging/retry.js';

const transient = (retryAfterMs?: number) =>
  new ExtractError({
    code: 'HTTP_STATUS',
    kind: 'status',
    url: 'http://x/api/images/',
    reason: 'returned 502',
    status: 502,
    retryAfterMs,
  });

describe('retry', () => {
  it('retries a retryable failure until it succeeds', async () => {
    let calls = 0;
    const result = await withRetry(
      async () => {
        if (++calls < 3) throw transient();
        return 'ok';
      },
      { baseDelayMs: 1 },
    );
    expect([result, calls]).toEqual(['ok', 3]);
  });

  it('does not retry a terminal failure', async () => {
    let calls = 0;
    const terminal = new ExtractError({
      code: 'HTTP_STATUS',
      kind: 'status',
      url: 'http://x/',
      reason: 'returned 404',
      status: 404,
    });
    await expect(
      withRetry(
        async () => {
          calls++;
          throw terminal;
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toBe(terminal);
    expect(calls).toBe(1);
  });

  it('gives up after the attempts and says how many', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw transient();
        },
        { attempts: 4, baseDelayMs: 1 },
      ),
    ).rejects.toThrow('returned 502 after 4 attempts');
    expect(calls).toBe(4);
  });

  it('gives up when the time budget would be exceeded', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw transient(5_000);
        },
        { budgetMs: 1_000 },
      ),
    ).rejects.toThrow('returned 502');
    expect(calls).toBe(1);
  });

  it('uses full jitter below an exponential ceiling', () => {
    expect(retryDelay(1, transient(), { baseDelayMs: 100, random: () => 0.999 })).toBe(100);
    expect(retryDelay(4, transient(), { baseDelayMs: 100, random: () => 0.5 })).toBe(400);
    expect(retryDelay(30, transient(), { baseDelayMs: 100, maxDelayMs: 5_000, random: () => 0.999 })).toBe(4995);
    expect(retryDelay(3, transient(), { random: () => 0 })).toBe(0);
  });

  it('honours Retry-After with a floor, and refuses one that is too long', () => {
    expect(retryDelay(1, transient(0), { retryAfterFloorMs: 1_000 })).toBe(1_000);
    expect(retryDelay(1, transient(7_000))).toBe(7_000);
    expect(retryDelay(1, transient(600_000), { retryAfterMaxMs: 120_000 })).toBeUndefined();
  });

  it('parses Retry-After as seconds and as an HTTP date', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
