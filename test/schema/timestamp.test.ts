import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatTimestampMicros,
  formatTimestampMicrosByDate,
  parseTimestampMicros,
} from '../../src/schema/timestamp.js';
import { timestamp } from '../../src/schema/column-types/timestamp.js';

describe('parseTimestampMicros', () => {
  it('keeps the exact instant and microseconds of a Berlin winter timestamp', () => {
    expect(parseTimestampMicros('2016-01-21T18:21:57.860138+01:00')).toBe(
      BigInt(Date.UTC(2016, 0, 21, 17, 21, 57)) * 1000n + 860138n,
    );
  });

  it('applies a summer +02:00 offset', () => {
    expect(parseTimestampMicros('2018-06-30T06:07:01.316444+02:00')).toBe(
      BigInt(Date.UTC(2018, 5, 30, 4, 7, 1)) * 1000n + 316444n,
    );
  });

  it('reads a value without a fraction (Python drops it when microseconds are 0)', () => {
    expect(parseTimestampMicros('2018-06-30T06:07:01+02:00')).toBe(BigInt(Date.UTC(2018, 5, 30, 4, 7, 1)) * 1000n);
  });

  it('pads a short fraction as a decimal fraction', () => {
    expect(parseTimestampMicros('2018-06-30T06:07:01.5Z')).toBe(
      BigInt(Date.UTC(2018, 5, 30, 6, 7, 1)) * 1000n + 500000n,
    );
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
    const edges = [
      0n,
      1n,
      999_999n,
      1_000_000n,
      86_399_999_999n,
      86_400_000_000n,
      951_782_400_000_000n,
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 53n + 1n,
      -1n,
      -1_000_000n,
    ];
    for (const micros of edges) expect(formatTimestampMicros(micros)).toBe(formatTimestampMicrosByDate(micros));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: 2n ** 53n }),
          fc.bigInt({ min: -62_135_596_800_000_000n, max: 253_402_300_799_999_999n }),
        ),
        (micros) => {
          expect(formatTimestampMicros(micros)).toBe(formatTimestampMicrosByDate(micros));
        },
      ),
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

describe('formatTimestampMicros outside years 0000-9999', () => {
  /** The instants a served timestamp can name: 0000-01-01 at +23:59 to 9999-12-31 at -23:59. */
  const first = parseTimestampMicros('0000-01-01T00:00:00+23:59')!;
  const last = parseTimestampMicros('9999-12-31T23:59:59.999999-23:59')!;

  /** Reads ISO 8601 UTC text with six fraction digits (extended years too) back to microseconds, through Date.parse. */
  const readBack = (text: string): bigint => {
    const match = /^([+-]\d{6}|\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(\d{6})Z$/.exec(text);
    if (match === null) throw new Error(`not ISO 8601 UTC with six fraction digits: ${text}`);
    return BigInt(Date.parse(`${text.slice(0, -8)}Z`)) * 1000n + BigInt(match[2]!);
  };

  it('writes the extended-year form with the seconds and the fraction', () => {
    const utc = (served: string) => formatTimestampMicros(parseTimestampMicros(served)!);
    expect(utc('9999-12-31T23:30:00-01:00')).toBe('+010000-01-01T00:30:00.000000Z');
    expect(utc('9999-12-31T23:59:59.999999-14:00')).toBe('+010000-01-01T13:59:59.999999Z');
    expect(utc('0000-01-01T00:30:00+01:00')).toBe('-000001-12-31T23:30:00.000000Z');
    expect(utc('0000-01-01T00:00:00.000001+01:00')).toBe('-000001-12-31T23:00:00.000001Z');
    expect(formatTimestampMicros(first)).toBe('-000001-12-31T00:01:00.000000Z');
    expect(formatTimestampMicros(last)).toBe('+010000-01-01T23:58:59.999999Z');
  });

  it('writes every instant a served timestamp can name so that it reads back exactly (property)', () => {
    const near = (edge: bigint) => fc.bigInt({ min: edge - 2n * 86_400_000_000n, max: edge + 2n * 86_400_000_000n });
    const year0 = parseTimestampMicros('0000-01-01T00:00:00Z')!;
    const year10000 = parseTimestampMicros('9999-12-31T23:59:59.999999Z')! + 1n;
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: first, max: last }), near(year0), near(year10000)), (micros) => {
        expect(readBack(formatTimestampMicros(micros))).toBe(micros);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the timestamp type reads back its CSV fields', () => {
  // What reads a snapshot's CSV (report, diff) reads each field with the column type's fromCsv: it must read every
  // field csvField writes, the extended-year form near the limits included, and nothing else of that shape.
  const first = parseTimestampMicros('0000-01-01T00:00:00+23:59')!;
  const last = parseTimestampMicros('9999-12-31T23:59:59.999999-23:59')!;

  it('reads the extended-year form it writes outside years 0000-9999', () => {
    for (const served of [
      '9999-12-31T23:30:00-01:00',
      '9999-12-31T23:59:59.999999-14:00',
      '0000-01-01T00:30:00+01:00',
    ]) {
      const micros = parseTimestampMicros(served)!;
      expect(timestamp.fromCsv(timestamp.csvField(micros, true))).toBe(micros);
    }
    expect(timestamp.fromCsv(timestamp.csvField(first, true))).toBe(first);
    expect(timestamp.fromCsv(timestamp.csvField(last, true))).toBe(last);
  });

  it('reads back every field it writes for an instant a served timestamp can name (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: first - 86_400_000_000n, max: last + 86_400_000_000n }), (micros) => {
        expect(timestamp.fromCsv(timestamp.csvField(micros, true))).toBe(micros);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses extended-year text that is not a date or that names a year 0000-9999', () => {
    for (const text of [
      '+010000-02-30T00:00:00.000000Z',
      '-000001-02-29T00:00:00.000000Z', // year -1 is no leap year
      '+002016-01-21T17:21:57.860138Z', // a four-digit year is written as such
      '+10000-01-01T00:00:00.000000Z',
      '+010000-01-01T24:00:00.000000Z',
      '010000-01-01T00:00:00.000000Z',
    ])
      expect(timestamp.fromCsv(text)).toBeUndefined();
    expect(timestamp.fromCsv('+010000-02-29T00:00:00.000000Z')).toBe(
      (timestamp.fromCsv('+010000-03-01T00:00:00.000000Z') as bigint) - 86_400_000_000n,
    );
  });
});
