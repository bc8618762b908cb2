/** The count a full run holds its records to once a collection it read was found gone after the pass. */
import { describe, expect, it } from 'vitest';
import { countAfterGone } from '../../../src/extract/completeness/count-after-gone.js';
import { ExtractError } from '../../../src/extract/paging/extract-error.js';

/** A recount answering `count`, and how many times it was asked. */
function answering(count: number): { recount: () => Promise<number>; asked: () => number } {
  let n = 0;
  return { recount: async () => (n++, count), asked: () => n };
}

describe('countAfterGone', () => {
  it('asks nothing when no collection read was gone, or the run holds what the pass counted', async () => {
    const { recount, asked } = answering(90);
    expect(await countAfterGone({ dropped: 0, expected: 100, received: 90 }, recount)).toBe(100);
    expect(await countAfterGone({ dropped: 8, expected: 100, received: 100 }, recount)).toBe(100);
    expect(await countAfterGone({ dropped: 8, expected: 100, received: 92 })).toBe(100); // an incremental run's
    expect(asked()).toBe(0);
  });

  it("holds the run to the count asked again, which may name records made since the pass's end", async () => {
    expect(await countAfterGone({ dropped: 8, expected: 100, received: 92 }, answering(92).recount)).toBe(92);
    expect(await countAfterGone({ dropped: 8, expected: 100, received: 92 }, answering(100).recount)).toBe(100);
    expect(await countAfterGone({ dropped: 8, expected: 100, received: 92 }, answering(103).recount)).toBe(103);
  });

  it('never lets go of more than the records of the gone collections: others deleted stay counted', async () => {
    expect(await countAfterGone({ dropped: 8, expected: 100, received: 90 }, answering(90).recount)).toBe(92);
  });

  it('keeps the count at the end of the pass when the count cannot be read; a cancelled run stays so', async () => {
    const url = 'http://127.0.0.1:1/api/images/?limit=1&offset=0';
    const reason = 'returned 502 after 5 attempts';
    const failed = new ExtractError({ code: 'HTTP_STATUS', kind: 'status', url, reason, status: 502 });
    const cancelled = new ExtractError({ code: 'ABORTED', url, reason: 'was cancelled' });
    const shortfall = { dropped: 8, expected: 100, received: 92 };
    expect(await countAfterGone(shortfall, () => Promise.reject(failed))).toBe(100);
    await expect(countAfterGone(shortfall, () => Promise.reject(cancelled))).rejects.toBe(cancelled);
  });
});
