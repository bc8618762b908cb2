/**
 * parseJsonBytes must give exactly what decoding the bytes as UTF-8 and JSON.parse give: the same values, the same
 * key order, the same refusals. Held to that for any JSON value, written as serialisers write it (non-ASCII as it
 * is) and with escapes, byte order marks and broken bytes mixed in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytesError, parseJsonBody, parseJsonBytes } from '../../../src/extract/paging/parse-json-bytes.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What the plain way gives: the value, or which of the two refusals. */
function plain(bytes: Uint8Array): { value: unknown } | { error: 'UTF8' | 'JSON'; message?: string } {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { error: 'UTF8' };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: 'JSON', message: (err as Error).message };
  }
}

/** parseJsonBytes; parseJsonBody checked to give the same value and, when it keeps a text, the bytes' Latin-1 text. */
function fast(bytes: Uint8Array): { value: unknown } | { error: 'UTF8' | 'JSON'; message?: string } {
  try {
    const value = parseJsonBytes(bytes);
    const body = parseJsonBody(bytes);
    expect(JSON.stringify(body.value)).toBe(JSON.stringify(value));
    if (body.text !== undefined) expect(body.text).toBe(Buffer.from(bytes).toString('latin1'));
    return { value };
  } catch (err) {
    if (!(err instanceof JsonBytesError)) throw err;
    return err.code === 'UTF8' ? { error: 'UTF8' } : { error: 'JSON', message: err.message };
  }
}

/** Deep equality that also holds key order and own "__proto__" keys. */
function expectSame(bytes: Uint8Array): void {
  const want = plain(bytes);
  const got = fast(bytes);
  expect(got).toEqual(want);
  if ('value' in want && 'value' in got) {
    expect(JSON.stringify(got.value)).toBe(JSON.stringify(want.value));
    expect(ownKeysDeep(got.value)).toEqual(ownKeysDeep(want.value));
  }
}

function ownKeysDeep(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(ownKeysDeep);
  return Object.getOwnPropertyNames(value).map((k) => [
    k,
    Object.getPrototypeOf(value) === Object.prototype,
    ownKeysDeep((value as Record<string, unknown>)[k]),
  ]);
}

/** Every non-ASCII character as a \u escape, as ensure_ascii serialisers write it. */
function escapeNonAscii(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const anyJson = fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 });
const unicodeJson = fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 });

describe('parseJsonBytes', () => {
  it('gives what decoding and JSON.parse give, for any JSON value written with non-ASCII as it is', () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, unicodeJson), (value) => expectSame(Buffer.from(JSON.stringify(value)))),
      { numRuns: 500 },
    );
  });

  it('the same with some or all non-ASCII written as \\u escapes, and with a byte order mark', () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, unicodeJson), fc.boolean(), fc.boolean(), (value, escapeAll, bom) => {
        const text = JSON.stringify(value);
        const mixed = escapeAll
          ? escapeNonAscii(text)
          : text.replace(/"[^"\\]*(?:\\.[^"\\]*)*"/g, (s, at: number) => (at % 2 === 0 ? escapeNonAscii(s) : s));
        expectSame(Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(mixed)]));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what the plain way refuses: broken UTF-8 and text that is not JSON, with the same message', () => {
    fc.assert(
      fc.property(unicodeJson, fc.nat(), fc.integer({ min: 0, max: 255 }), (value, where, byte) => {
        const bytes = Buffer.from(JSON.stringify({ a: value, b: 'é' }));
        bytes[where % bytes.length] = byte;
        expectSame(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps keys decoded again in place, "__proto__" included, and the values that look like broken bytes', () => {
    for (const text of [
      '{"é":1,"a":2,"ß":{"ü":[1,"ö"]}}',
      '{"__proto__":{"é":1},"x":"é"}',
      '{"é":1,"__proto__":"ö"}',
      '{"2":"é","1":"ü","b":"x"}',
      '["\\u00e9", "é", "\\\\u00e9", "Ã©"]',
      '{"a":"é","a":"ü"}',
      '"\\u20ac é"',
      '{"emoji":"😀 \\ud83d\\ude00"}',
    ]) {
      expectSame(Buffer.from(text));
    }
    const value = parseJsonBytes(Buffer.from('{"__proto__":{"é":1},"x":"é"}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(value)).toEqual(['__proto__', 'x']);
  });

  it('keeps the Latin-1 text it parsed, for the searches of a page, and none when it decoded the bytes first', () => {
    const latin1 = (text: string) => Buffer.from(text).toString('latin1');
    const cases: [string, boolean][] = [
      ['{"results":[{"name":"plain"}]}', true],
      ['{"results":[{"name":"Zürich, 東京"}]}', true],
      ['{"results":[{"name":"Z\\u00fcrich"}]}', true], // ASCII: JSON.parse reads its escapes itself
      ['{"results":[{"name":"Z\\u00fcrich, é"}]}', false], // an escape from 0x80 beside UTF-8: decoded first
      ['\ufeff{"results":[]}', false], // a byte order mark: decoded first
    ];
    for (const [text, kept] of cases) {
      const body = parseJsonBody(Buffer.from(text));
      expect([text, body.text]).toEqual([text, kept ? latin1(text) : undefined]);
      expect(body.value).toEqual(JSON.parse(text.replace(/^\ufeff/, '')));
    }
  });

  it('reads a Uint8Array that is not a Buffer, at an offset', () => {
    const backing = new Uint8Array(Buffer.from('xx{"é":"ü"}yy'));
    expect(parseJsonBytes(backing.subarray(2, backing.length - 2))).toEqual({ é: 'ü' });
  });
});
