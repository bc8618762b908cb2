import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { log2Bin } from '../../src/report/histogram.js';
import { monthOf } from '../../src/report/report-stats.js';

describe('monthOf', () => {
  it('is the UTC month of the instant, also before 1970, in years 0-99 and near month ends', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -62_135_596_800_000_000n, max: 253_402_300_799_999_999n }), (micros) => {
        const ms = Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0);
        const d = new Date(ms);
        expect(monthOf(micros)).toBe(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
      }),
    );
    expect(monthOf(-1n)).toBe('1969-12');
    expect(monthOf(0n)).toBe('1970-01');
    expect(monthOf(-61_850_000_000_000_000n)).toBe('10-01'); // year 10, not 1910
  });

  it('keeps the month of the row before only within that month', () => {
    const end = BigInt(Date.UTC(2016, 1, 1)) * 1000n; // 2016-02-01T00:00:00Z
    expect([monthOf(end - 1n), monthOf(end), monthOf(end - 1n)]).toEqual(['2016-01', '2016-02', '2016-01']);
  });
});

describe('log2Bin', () => {
  it('puts v in [2^(k-1), 2^k) as bin k, and [0, 1) in bin 0, exactly near powers of 2', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 62 }), fc.constantFrom(-1, 0, 1), (k, d) => {
        const v = 2 ** k + d;
        const bin = log2Bin(v);
        expect(2 ** (bin - 1) <= v && v < 2 ** bin).toBe(true);
      }),
    );
    expect([log2Bin(0), log2Bin(0.5), log2Bin(1), log2Bin(2), log2Bin(3), log2Bin(4)]).toEqual([0, 0, 1, 2, 2, 3]);
  });
});
