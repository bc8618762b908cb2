import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8FromStrings } from '../../../src/schema/encoding/utf8-from-strings.js';

describe('utf8FromStrings', () => {
  it('reads back as the same strings and nulls, ASCII-only or not (one batch path each)', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }).map((s) => s.toWellFormed()),
    );
    fc.assert(
      fc.property(fc.array(fc.option(text, { nil: null }), { maxLength: 60 }), (strings) => {
        const data = utf8FromStrings(arrow, strings);
        expect([...arrow.makeVector(data)]).toEqual(strings);
        expect(data.nullCount).toBe(strings.filter((s) => s === null).length);
      }),
    );
  });

  it('keeps empty strings apart from nulls', () => {
    const strings = ['', null, 'a', '', 'ü', null];
    expect([...arrow.makeVector(utf8FromStrings(arrow, strings))]).toEqual(strings);
  });
});
