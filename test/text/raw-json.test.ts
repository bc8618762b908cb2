/**
 * The raw JSON scanner against JSON.parse: every span it finds parses to what JSON.parse makes of that part of the
 * whole text, for any JSON text (escapes, nesting, whitespace, `__proto__` keys, repeated keys, any number spelling).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arrayElements,
  eachMemberFromEnd,
  objectMembers,
  resultSpans,
  singleLineJson,
} from '../../src/text/raw-json.js';

/** JSON whitespace, often none. */
const ws = fc.oneof(fc.constant(''), fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r'), maxLength: 3 }));

/** Any number as JSON may spell it: -0, 1.0, 1E5, 1e400, integers past 2^53. */
const numberText = fc.stringMatching(/^-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?$/);

/** One character of a string literal: plain (any code unit but `"`, `\` and controls), or escaped as JSON allows. */
const stringPart = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '"' && c !== '\\' && c >= ' '),
  fc.constantFrom('a', 'é', '日', '🧠', '\u2028', '/', "'", '{', '}', '[', ']', ',', ':', ' '),
  fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0022', '\\u005c', '\\u005C'),
  fc.constantFrom('\\ud83e\\udde0', '\\ud800'),
  fc.integer({ min: 0, max: 0xffff }).map((n) => `\\u${n.toString(16).padStart(4, '0')}`),
);
const stringText = fc.array(stringPart, { maxLength: 6 }).map((parts) => `"${parts.join('')}"`);

/** Keys: any string, and a few that repeat or that a JavaScript object treats specially. */
const keyText = fc.oneof(
  stringText,
  fc.constantFrom('"a"', '"\\u0061"', '"__proto__"', '"\\u005f_proto__"', '"constructor"', '"1"', '"results"', '"id"'),
);

/** `[…]` or `{…}` around the items joined with commas, or around whitespace when there are none. */
const around = (open: string, items: string[], close: string) =>
  ws.map((inner) => `${open}${items.length === 0 ? inner : items.join(',')}${close}`);

const { value: valueText, object: objectText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberText,
    stringText,
    fc.constantFrom('true', 'false', 'null'),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }).chain((items) =>
    around(
      '[',
      items.map((p) => p.join('')),
      ']',
    ),
  ),
  object: fc.array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 5 }).chain((members) =>
    around(
      '{',
      members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`),
      '}',
    ),
  ),
}));

/** A canonical, order-keeping text of a parsed value that tells -0 from 0 and keeps a `__proto__` key. */
function canon(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canon).join(',')}]`;
  const members = Object.keys(value).map((k) => `${JSON.stringify(k)}:${canon((value as Record<string, unknown>)[k])}`);
  return `{${members.join(',')}}`;
}

/** The object JSON.parse makes of members: a repeated key keeps its first place and takes the last value. */
function objectOf(text: string, members: ReturnType<typeof objectMembers>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const m of members) {
    const value: unknown = JSON.parse(text.slice(m.valueStart, m.valueEnd));
    Object.defineProperty(object, m.key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

describe('objectMembers', () => {
  it('finds every member of any object: its key decoded as JSON.parse does, its key and value text (property)', () => {
    fc.assert(
      fc.property(ws, objectText, ws, (before, object, after) => {
        const text = before + object + after;
        const members = objectMembers(text);
        for (const m of members) {
          expect(JSON.parse(text.slice(m.keyStart, m.keyEnd))).toBe(m.key);
          const value = text.slice(m.valueStart, m.valueEnd);
          expect(value).toBe(value.trim()); // no whitespace around
        }
        expect(canon(objectOf(text, members))).toBe(canon(JSON.parse(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it('lists a repeated key each time; JSON.parse keeps the last value at the first place', () => {
    const text = '{"a":1,"b":2,"\\u0061":3,"__proto__":{"x":1},"__proto__":[]}';
    const members = objectMembers(text);
    const written = members.map((m) => [m.key, text.slice(m.keyStart, m.keyEnd), text.slice(m.valueStart, m.valueEnd)]);
    expect(written).toEqual([
      ['a', '"a"', '1'],
      ['b', '"b"', '2'],
      ['a', '"\\u0061"', '3'],
      ['__proto__', '"__proto__"', '{"x":1}'],
      ['__proto__', '"__proto__"', '[]'],
    ]);
    expect(canon(objectOf(text, members))).toBe(canon(JSON.parse(text)));
    expect(canon(JSON.parse(text))).toBe('{"a":3,"b":2,"__proto__":[]}');
  });

  it('gives numbers the text they were served with', () => {
    const text = '{ "big" : 12345678901234567890 , "huge":1e400,"neg":-0,"one":1.0,"e":1E5 }';
    const values = objectMembers(text).map((m) => text.slice(m.valueStart, m.valueEnd));
    expect(values).toEqual(['12345678901234567890', '1e400', '-0', '1.0', '1E5']);
  });
});

describe('eachMemberFromEnd', () => {
  it('visits the members of any object from the last to the first, as objectMembers finds them (property)', () => {
    fc.assert(
      fc.property(ws, objectText, ws, (before, object, after) => {
        const text = before + object + after;
        const visited: number[][] = [];
        eachMemberFromEnd(text, (...span) => visited.push(span) > 0);
        const spans = objectMembers(text).flatMap((m) => [m.keyStart, m.keyEnd, m.valueStart, m.valueEnd]);
        expect(visited.reverse().flat()).toEqual(spans);
      }),
      { numRuns: 3000 },
    );
  });

  it('stops when the visitor says so', () => {
    const text = '{"a":1,"b":"}","c":[{"d":"\\"}]}';
    const keys: string[] = [];
    eachMemberFromEnd(text, (keyStart, keyEnd) => keys.push(JSON.parse(text.slice(keyStart, keyEnd)) as string) < 2);
    expect(keys).toEqual(['c', 'b']);
  });
});

describe('arrayElements and resultSpans', () => {
  it('finds every element of any array (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(ws, valueText, ws), { maxLength: 6 }), ws, (items, inner) => {
        const text = `[${items.length === 0 ? inner : items.map((p) => p.join('')).join(',')}]`;
        const elements = arrayElements(text, 0).map((s) => canon(JSON.parse(text.slice(s.start, s.end))));
        expect(`[${elements.join(',')}]`).toBe(canon(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it("finds each record of a page's results in its UTF-8 bytes, the last results key winning (property)", () => {
    // UTF-8 has no lone surrogate.
    const wellFormed = valueText.filter((v) => JSON.stringify(JSON.parse(v)).isWellFormed());
    const page = fc.record({
      records: fc.array(wellFormed, { maxLength: 5 }),
      earlier: fc.array(wellFormed, { maxLength: 3 }),
      space: ws,
      twice: fc.boolean(),
      bom: fc.boolean(),
    });
    fc.assert(
      fc.property(page, ({ records, earlier, space, twice, bom }) => {
        const results = (list: string[]) => `[${space}${list.join(`${space},${space}`)}${space}]`;
        const first = twice ? `"results":${results(earlier)},` : '';
        const last = `"re\\u0073ults"${space}:${space}${results(records)}`;
        const text = `${bom ? '\ufeff' : ''}${space}{"count":1,${first}"next":null,${last},"previous":"\\"]"}${space}`;
        const bytes = Buffer.from(text, 'utf8');
        const spans = resultSpans(bytes);
        const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { results: unknown[] };
        const found = spans.map((s) => bytes.toString('utf8', s.start, s.end));
        expect(found.map((t) => canon(JSON.parse(t)))).toEqual(parsed.results.map(canon));
        expect(found).toEqual(records);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('singleLineJson', () => {
  it('keeps text without a line break as it is, else drops only the whitespace outside strings (property)', () => {
    fc.assert(
      fc.property(valueText, (text) => {
        const line = singleLineJson(text);
        expect(line).not.toMatch(/[\r\n]/);
        expect(canon(JSON.parse(line))).toBe(canon(JSON.parse(text)));
        if (!/[\r\n]/.test(text)) expect(line).toBe(text);
      }),
      { numRuns: 2000 },
    );
    expect(singleLineJson('{\n  "a": "x y",\r\n  "b": [1, 2]\n}')).toBe('{"a":"x y","b":[1,2]}');
  });
});
