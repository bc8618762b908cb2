/**
 * latin1Text reads bytes as Latin-1 in parts of under 1 MB (heap strings, not Node's external strings): the same text
 * as one toString('latin1'), whatever the length and wherever the parts fall, and so a page parsed through it is the
 * page decoded and parsed, a UTF-8 sequence cut by a part's end included.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { latin1Text } from '../../src/text/latin1-text.js';
import { parseJsonBytes } from '../../src/extract/paging/parse-json-bytes.js';
import { resultSpans } from '../../src/text/raw-json.js';

describe('latin1Text', () => {
  it('is the bytes read as Latin-1, below, at and past the size of a part, from any start to any end', () => {
    for (const length of [0, 1, 999_999, 1_000_000, 1_000_001, 2_000_000, 2_345_678]) {
      const bytes = randomBytes(length);
      expect(latin1Text(bytes)).toBe(bytes.toString('latin1'));
      const [start, end] = [Math.floor(length / 7), length - Math.floor(length / 11)];
      expect(latin1Text(bytes, start, end)).toBe(bytes.toString('latin1', start, end));
    }
  });

  it('gives a page of more than a part, with characters of 2 to 4 bytes across the parts, parsed as decoded', () => {
    const names = ['é', 'Ω', '脳', '🧠'];
    const results = Array.from({ length: 30_000 }, (_, i) => ({
      id: i,
      name: `${names[i % 4]!.repeat(i % 37)}map ${i}`,
    }));
    const page = Buffer.from(JSON.stringify({ count: results.length, next: null, previous: null, results }), 'utf8');
    expect(page.length).toBeGreaterThan(2_000_000);
    expect(parseJsonBytes(page)).toEqual(JSON.parse(new TextDecoder().decode(page)));
    const spans = resultSpans(page);
    expect(spans).toHaveLength(results.length);
    const last = spans.at(-1)!;
    expect(JSON.parse(page.toString('utf8', last.start, last.end))).toEqual(results.at(-1));
  });
});
