import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesWhere, parseWhere } from '../../src/files/where-condition.js';

/** Whether `text` matches `description like '<pattern>'` (the pattern's quotes doubled as SQL writes them). */
const like = (pattern: string, text: string | null, steps?: { count: number }): boolean =>
  matchesWhere(parseWhere(`description like '${pattern.replaceAll("'", "''")}'`), text, steps);

/** The comparison steps `like` takes. */
const stepsOf = (pattern: string, text: string): number => {
  const steps = { count: 0 };
  like(pattern, text, steps);
  return steps.count;
};

/** The semantics before the linear matcher, kept as the reference: the pattern as a whole-string regular expression. */
const reference = (pattern: string, text: string): boolean => {
  const source = Array.from(pattern, (ch) =>
    ch === '%' ? '[\\s\\S]*' : ch === '_' ? '[\\s\\S]' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  ).join('');
  return new RegExp(`^${source}$`, 'u').test(text);
};

describe('like', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['abc', 'ABC', false], // case matters
    ['a%', 'a', true],
    ['a%', 'ba', false],
    ['%a', 'ba', true],
    ['%b%', 'abc', true],
    ['%b%', 'ac', false],
    ['a_c', 'abc', true],
    ['a_c', 'ac', false],
    ['a_c', 'a😀c', true], // `_` is one character, not one UTF-16 unit
    ['%', '', true],
    ['_', '', false],
    ['', '', true],
    ['a%b%c', 'aXbYc', true],
    ['a%b%c', 'acb', false],
    ['%ab%ab', 'abab', true],
    ['%ab%ab', 'aba', false],
    ['a.c', 'abc', false], // regular-expression characters are literal
    ['a\\%', 'a\\x', true], // no escape character: a backslash is literal
    ["it's%", "it's here", true], // written doubled in the condition
    ['%\n%', 'two\nlines', true],
  ])('%j matches %j: %j', (pattern, text, expected) => {
    expect(like(pattern, text)).toBe(expected);
    expect(reference(pattern, text)).toBe(expected);
  });

  it('never matches a null value', () => {
    expect(like('%', null)).toBe(false);
  });

  it('agrees with the regular expression it replaced on small patterns and texts', () => {
    const char = fc.constantFrom('a', 'b', 'A', '%', '_', '.', '\\', '*', '\n', '😀', '\uD83D', '\uDE00');
    const text = fc.array(char, { maxLength: 12 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(text, text, (pattern, value) => like(pattern, value) === reference(pattern, value)),
      { numRuns: 5000 },
    );
  });

  it('takes comparison steps linear in the text for patterns a backtracking matcher explodes on', () => {
    // the counter is in effect: a matcher that counts nothing cannot show it is linear
    expect(stepsOf('%ab%', 'a'.repeat(16))).toBeGreaterThan(0);
    for (const [pattern, fill] of [
      ['%%%b', 'a'],
      ['%a%a%a%a%b', 'a'],
      ['%ab%', 'a'],
      ['%a_a_b%', 'a'],
      ['%aaab%aaab', 'a'],
      ['_%_%_%b', 'x'],
    ] as const) {
      for (const n of [1_000, 20_000]) {
        // linear: a·n − b doubles to 2(a·n − b) + b, with b (the places a segment has no room at) below length²
        const once = stepsOf(pattern, fill.repeat(n));
        const twice = stepsOf(pattern, fill.repeat(2 * n));
        expect(twice, `${pattern} on ${2 * n} characters`).toBeLessThanOrEqual(2 * once + pattern.length ** 2);
        expect(twice, `${pattern} on ${2 * n} characters`).toBeLessThanOrEqual(2 * n * pattern.length);
      }
    }
  });

  it('decides a pattern on ten records of 20,000 characters in at most n × pattern-length steps each', () => {
    expect(stepsOf('%%%b', 'aab')).toBeGreaterThan(0); // counted, as above (and no exponential run before it fails)
    const texts = Array.from({ length: 10 }, (_, i) => 'a'.repeat(19_999) + (i % 2 === 0 ? 'b' : 'c'));
    for (const pattern of ['%%%b', '%a%a%a%a%b']) {
      const steps = { count: 0 };
      const matched = texts.filter((t) => like(pattern, t, steps));
      expect(matched).toHaveLength(5);
      expect(steps.count).toBeLessThanOrEqual(10 * 20_000 * pattern.length);
    }
  });
});
