/** Python int(), Django QueryDict parsing and DRF paging arithmetic, as pure functions (with properties). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveLimit, effectiveOffset, pageLink, pageWindow } from '../../../src/service/http/pagination.js';
import {
  lastValue,
  parseQueryString,
  pythonInt,
  quotePlus,
  unquotePlus,
} from '../../../src/service/http/query-params.js';

describe('pythonInt', () => {
  it.each([
    ['42', 42n],
    ['  42\t\n', 42n],
    ['+7', 7n],
    ['-7', -7n],
    ['007', 7n],
    ['1_000', 1000n],
    ['\u00a012\u3000', 12n],
    ['\u0663\u0664', 34n],
    ['\uff11\uff12', 12n],
    ['\u{1d7d9}', 1n],
    ['12345678901234567890123', 12345678901234567890123n],
  ])('int(%j) is %s', (text, expected) => {
    expect(pythonInt(text)).toBe(expected);
  });

  it.each(['', ' ', '1.5', '1e3', '0x10', '_1', '1_', '1__0', '- 5', '+-5', '5 5', 'one', '\u200b5'])(
    'int(%j) raises ValueError',
    (text) => {
      expect(pythonInt(text)).toBeUndefined();
    },
  );

  it('refuses more than 4300 digits, as Python does', () => {
    expect(pythonInt('1'.repeat(4300))).toBe(BigInt('1'.repeat(4300)));
    expect(pythonInt('1'.repeat(4301))).toBeUndefined();
  });

  it('reads back any integer written in decimal, with underscores and surrounding spaces', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.boolean(), (value, spaced) => {
        const digits = (value < 0n ? -value : value).toString();
        const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '_');
        const text = `${spaced ? ' \t' : ''}${value < 0n ? '-' : ''}${grouped}${spaced ? '\n ' : ''}`;
        expect(pythonInt(text)).toBe(value);
      }),
    );
  });
});

describe('query strings', () => {
  it('keep blank values, decode plus and percent escapes, skip empty fields', () => {
    expect(parseQueryString('a=1&&b&c=&d=x+y%2Bz&e=%E2%9C%93')).toEqual([
      ['a', '1'],
      ['b', ''],
      ['c', ''],
      ['d', 'x y+z'],
      ['e', '✓'],
    ]);
  });

  it('leave bad escapes literal and replace bad UTF-8', () => {
    expect(unquotePlus('%zz%4')).toBe('%zz%4');
    expect(unquotePlus('%C3')).toBe('\ufffd');
  });

  it('split only on & (not ;)', () => {
    expect(parseQueryString('a=1;b=2')).toEqual([['a', '1;b=2']]);
  });

  it('give the last value of a repeated parameter', () => {
    expect(lastValue(parseQueryString('limit=5&x=1&limit=7'), 'limit')).toBe('7');
    expect(lastValue(parseQueryString('x=1'), 'limit')).toBeUndefined();
  });

  it('quote like quote_plus', () => {
    expect(quotePlus('a b/c~d_e.f-g*h')).toBe('a+b%2Fc~d_e.f-g%2Ah');
    expect(quotePlus('é✓')).toBe('%C3%A9%E2%9C%93');
  });

  it('round-trip any text through quote_plus and unquote_plus', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(unquotePlus(quotePlus(text))).toBe(text);
      }),
    );
  });
});

describe('paging arithmetic', () => {
  const counts = fc.integer({ min: 0, max: 5000 });
  const limits = fc.integer({ min: 1, max: 1000 });
  const offsets = fc.bigInt({ min: 0n, max: 10_000n });

  it('follows paginate_queryset and the next/previous rules for any count, limit and offset', () => {
    fc.assert(
      fc.property(counts, limits, offsets, (count, limit, offset) => {
        const w = pageWindow(count, limit, offset);
        const expectedLength = offset > BigInt(count) ? 0 : Math.max(0, Math.min(limit, count - Number(offset)));
        expect(w.end - w.start).toBe(expectedLength);
        if (expectedLength > 0) expect(w.start).toBe(Number(offset));
        expect(w.nextOffset).toBe(offset + BigInt(limit) >= BigInt(count) ? null : offset + BigInt(limit));
        if (offset <= 0n) expect(w.previousOffset).toBeNull();
        else if (offset - BigInt(limit) <= 0n) expect(w.previousOffset).toBe('omit');
        else expect(w.previousOffset).toBe(offset - BigInt(limit));
      }),
    );
  });

  it('visits every row exactly once when next links are followed on a stable list', () => {
    fc.assert(
      fc.property(counts, limits, (count, limit) => {
        let offset: bigint | null = 0n;
        let seen = 0;
        while (offset !== null) {
          const w = pageWindow(count, limit, offset);
          expect(w.start).toBe(count === 0 ? 0 : seen);
          seen += w.end - w.start;
          offset = w.nextOffset;
        }
        expect(seen).toBe(count);
      }),
    );
  });

  it('caps limit at 1000 and defaults bad values to 100 / 0', () => {
    expect(effectiveLimit(undefined)).toBe(100);
    expect(effectiveLimit('1000000')).toBe(1000);
    expect(effectiveLimit('0')).toBe(100);
    expect(effectiveOffset('-3')).toBe(0n);
    expect(effectiveOffset('12')).toBe(12n);
  });

  it('writes links with sorted keys and the offset set or removed', () => {
    const pairs = parseQueryString('z=1&offset=9&limit=3&format=json');
    expect(pageLink('http://h/api/images/', pairs, 3, 12n)).toBe(
      'http://h/api/images/?format=json&limit=3&offset=12&z=1',
    );
    expect(pageLink('http://h/api/images/', pairs, 3, 'omit')).toBe('http://h/api/images/?format=json&limit=3&z=1');
  });
});
