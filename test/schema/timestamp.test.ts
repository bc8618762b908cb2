import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimestampMicros, formatTimestampMicrosByDate, parseTimestampMicros } from '../../src/schema/timestamp.js';

describe('parseTimestampMicros', () => {
  it('keeps the exact instant and microseconds of a Berlin winter timestamp', () => {
    expect(parseTimestampMicros('2016-01-21T18:21:57.860138+01:00')).toBe(BigInt(Date.UTC(2016, 0, 21, 17, 21, 57)) * 1000n + 860138n);
  });

  it('applies a summer +02:00 offset', () => {
    expect(parseTimestampMicros('2018-06-30T06:07:01.316444+02:00')).toBe(BigInt(Date.UTC(2018, 5, 30, 4, 7, 1)) * 1000n + 316444n);
  });

  it('reads a value without a fraction (Python drops it when microseconds are 0)', () => {
    expect(parseTimestampMicros('2018-06-30T06:07:01+02:00')).toBe(BigInt(Date.UTC(2018, 5, 30, 4, 7, 1)) * 1000n);
  });

  it('pads a short fraction as a decimal fraction', () => {
    expect(parseTimestampMicros('2018-06-30T06:07:01.5Z')).toBe(BigInt(Date.UTC(2018, 5, 30, 6, 7, 1)) * 1000n + 500000n);
  });

  it.each([
    ['no offset', '2018-06-30T06:07:01.316444'],
    ['month 13', '2018-13-30T06:07:01+02:00'],
    ['31 April', '2018-04-31T06:07:01+02:00'],
    ['29 February of a common year', '2019-02-29T00:00:00+01:00'],
    ['hour 24', '2018-06-30T24:00:00+02:00'],
    ['seven fraction digits', '2018-06-30T06:07:01.1234567+02:00'],
    ['not a timestamp', 'yesterday'],
    ['empty', ''],
  ])('refuses %s', (_, text) => {
    expect(parseTimestampMicros(text)).toBeUndefined();
  });

  it('formats every instant as Date does, on the fast path (1970 to 2^53 µs) and beyond it (property)', () => {
    const edges = [0n, 1n, 999_999n, 1_000_000n, 86_399_999_999n, 86_400_000_000n, 951_782_400_000_000n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -1n, -1_000_000n];
    for (const micros of edges) expect(formatTimestampMicros(micros)).toBe(formatTimestampMicrosByDate(micros));
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 53n }), fc.bigInt({ min: -62_135_596_800_000_000n, max: 253_402_300_799_999_999n })), (micros) => {
        expect(formatTimestampMicros(micros)).toBe(formatTimestampMicrosByDate(micros));
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips any instant with any offset through the UTC formatter (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -62_135_596_800_000_000n, max: 253_402_300_799_999_999n }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (micros, offsetMinutes) => {
          const utc = formatTimestampMicros(micros);
          expect(parseTimestampMicros(utc)).toBe(micros);
          // The same instant written in another offset parses to the same value.
          const local = micros + BigInt(offsetMinutes) * 60_000_000n;
          const text = formatTimestampMicros(local).slice(0, -1);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          if (text.startsWith('-') || !/^\d{4}-/.test(text)) return; // outside four-digit years
          expect(parseTimestampMicros(text + zone)).toBe(micros);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
