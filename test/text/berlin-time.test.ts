/** Europe/Berlin timestamps in Python isoformat, and Python float repr. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { berlinOffsetHours, formatBerlinTimestamp, utcMicros } from '../../src/text/berlin-time.js';
import { indentJson, pythonFloat } from '../../src/text/python-json.js';

describe('formatBerlinTimestamp', () => {
  it('writes winter instants with +01:00', () => {
    expect(formatBerlinTimestamp(utcMicros(2016, 1, 21, 17, 21, 57, 860_138))).toBe('2016-01-21T18:21:57.860138+01:00');
  });

  it('writes summer instants with +02:00', () => {
    expect(formatBerlinTimestamp(utcMicros(2018, 6, 30, 4, 7, 1, 316_444))).toBe('2018-06-30T06:07:01.316444+02:00');
  });

  it('switches to summer time at 01:00 UTC on the last Sunday of March', () => {
    expect(formatBerlinTimestamp(utcMicros(2021, 3, 28, 0, 59, 59, 999_999))).toBe('2021-03-28T01:59:59.999999+01:00');
    expect(formatBerlinTimestamp(utcMicros(2021, 3, 28, 1, 0, 0, 1))).toBe('2021-03-28T03:00:00.000001+02:00');
  });

  it('switches back at 01:00 UTC on the last Sunday of October', () => {
    expect(formatBerlinTimestamp(utcMicros(2021, 10, 31, 0, 59, 59, 5))).toBe('2021-10-31T02:59:59.000005+02:00');
    expect(formatBerlinTimestamp(utcMicros(2021, 10, 31, 1, 0, 0, 5))).toBe('2021-10-31T02:00:00.000005+01:00');
  });

  it('ended summer time on the last Sunday of September before 1996', () => {
    expect(berlinOffsetHours(Date.UTC(1995, 8, 24, 0, 59))).toBe(2);
    expect(berlinOffsetHours(Date.UTC(1995, 8, 24, 1, 0))).toBe(1);
  });

  it('omits the fraction entirely when microseconds are 0, as isoformat does', () => {
    expect(formatBerlinTimestamp(utcMicros(2020, 12, 31, 23, 0, 0, 0))).toBe('2021-01-01T00:00:00+01:00');
  });

  it('always denotes the same instant (local time minus offset)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: utcMicros(1990, 1, 1) / 1e6, max: utcMicros(2040, 1, 1) / 1e6 }),
        fc.integer({ min: 0, max: 999_999 }),
        (seconds, micros) => {
          const text = formatBerlinTimestamp(seconds * 1_000_000 + micros);
          expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+0[12]:00$/);
          expect(Date.parse(text)).toBe(seconds * 1000 + Math.floor(micros / 1000));
        },
      ),
    );
  });
});

describe('pythonFloat', () => {
  it.each([
    [0, '0.0'],
    [100, '100.0'],
    [99.3518654951259, '99.3518654951259'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e16, '1e+16'],
    [1234567890123456, '1234567890123456.0'],
    [-2.5, '-2.5'],
    [Number.NaN, 'null'],
  ])('repr(%d) is %s', (value, expected) => {
    expect(pythonFloat(value)).toBe(expected);
  });

  it('parses back to the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(JSON.parse(pythonFloat(value))).toBe(value);
      }),
    );
  });
});

describe('indentJson', () => {
  it('lays out like json.dumps(indent=4) and keeps number spellings', () => {
    expect(indentJson('{"a":[1,0.0],"b":{},"c":"x,:{"}')).toBe(
      '{\n    "a": [\n        1,\n        0.0\n    ],\n    "b": {},\n    "c": "x,:{"\n}',
    );
  });
});
