/** oneLine: what every error class does to its message. */
import { describe, expect, it } from 'vitest';
import { oneLine } from '../../src/text/one-line.js';

describe('oneLine', () => {
  it('turns each run of white space and control characters into one space and trims the ends', () => {
    expect(oneLine(' a\r\n  b\tc\u2028d\u0000e\u007f\u0085f\u00a0 g\n')).toBe('a b c d e f g');
  });

  it('leaves a one-line text with single spaces as it is', () => {
    expect(oneLine('load: cannot write to /tmp/x: the disk is full (ENOSPC)')).toBe(
      'load: cannot write to /tmp/x: the disk is full (ENOSPC)',
    );
  });

  it('cuts past maxChars with an ellipsis, counting after flattening', () => {
    expect(oneLine('ab\n\ncdef', 4)).toBe('ab c…');
    expect(oneLine('abcd', 4)).toBe('abcd');
  });
});
