/**
 * SQL LIKE on whole strings, in time linear in the text: `%` any run, `_` one character (a code point, as a `u`
 * regular expression reads it), everything else literal and case-sensitive, no escape character. The pattern is cut
 * at `%` into segments; the first must match at the start, the last at the end, and each one between at its leftmost
 * place after the one before (leftmost is never worse, since `%` takes any run). A segment is tried at each place
 * once, so a text of n characters costs at most n × pattern-length comparisons: no backtracking, whatever the
 * pattern.
 */

/** A compiled LIKE pattern: its `%`-separated segments as code points, -1 for `_`. */
export interface LikePattern {
  /** The segments; one when the pattern has no `%`. */
  segments: readonly (readonly number[])[];
}

/** A counter of the code-point comparisons a match takes (to test that matching is linear). */
export interface LikeSteps {
  count: number;
}

const ANY_ONE = -1;

/** Compiles a LIKE pattern. */
export function likePattern(pattern: string): LikePattern {
  return {
    segments: pattern.split('%').map((part) => Array.from(part, (ch) => (ch === '_' ? ANY_ONE : ch.codePointAt(0)!))),
  };
}

/** Whether the whole of `text` matches; `steps`, when given, is increased by the comparisons made. */
export function matchesLike(pattern: LikePattern, text: string, steps?: LikeSteps): boolean {
  const chars = codePoints(text);
  const { segments } = pattern;
  const counter = steps ?? { count: 0 };
  const first = segments[0]!;
  if (segments.length === 1) return chars.length === first.length && matchesAt(first, chars, 0, counter);
  const last = segments[segments.length - 1]!;
  const end = chars.length - last.length;
  if (end < first.length || !matchesAt(first, chars, 0, counter) || !matchesAt(last, chars, end, counter)) return false;
  let from = first.length;
  for (let s = 1; s < segments.length - 1; s++) {
    const segment = segments[s]!;
    let at = from;
    while (at + segment.length <= end && !matchesAt(segment, chars, at, counter)) at++;
    if (at + segment.length > end) return false;
    from = at + segment.length;
  }
  return true;
}

/** Whether `segment` matches `chars` from `at` (which has room for it). */
function matchesAt(segment: readonly number[], chars: readonly number[], at: number, steps: LikeSteps): boolean {
  for (let i = 0; i < segment.length; i++) {
    steps.count++;
    const want = segment[i]!;
    if (want !== ANY_ONE && want !== chars[at + i]) return false;
  }
  return true;
}

/** The code points of `text` (a lone surrogate is one, as a `u` regular expression reads it). */
function codePoints(text: string): number[] {
  const chars: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    chars.push(cp);
    if (cp > 0xffff) i++;
  }
  return chars;
}
