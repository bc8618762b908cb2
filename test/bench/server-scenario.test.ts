import { describe, expect, it } from 'vitest';
import { serverLimitSeconds } from './server-scenario.js';

describe('the server-bound limit', () => {
  it('is 25 s for 20,000 records at page size 100, 4 workers, 200 ms a page + 3 ms a record', () => {
    const load = { records: 20_000, seed: 1, workers: 4, pageLatencyMs: 200, recordLatencyMs: 3 };
    expect(serverLimitSeconds(load, 100)).toBe(25);
    // A short last page costs its page time in full: 203 pages of 99, the last one of 2 records.
    expect(serverLimitSeconds(load, 99)).toBeCloseTo((203 * 200 + 20_000 * 3) / 4 / 1000, 9);
  });
});
