/** oneLine: what every error class does to its message. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/usage-error.js';
import { DiffError } from '../../src/snapshot/diff-error.js';
import { CheckpointError } from '../../src/extract/staging/checkpoint-error.js';
import { ExtractError } from '../../src/extract/paging/extract-error.js';
import { LoadError } from '../../src/text/load-error.js';
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

describe('every error class the CLI shows', () => {
  const text = 'cannot read /tmp/x:\n  line two\r\n\u0000 and\u2028three';
  const flat = 'cannot read /tmp/x: line two and three';
  it.each([
    [
      'ExtractError',
      () => new ExtractError({ code: 'BAD_BODY', url: 'http://h/', reason: text, retryable: true }),
      `extract: GET http://h/ ${flat}`,
    ],
    ['LoadError', () => LoadError.of('LOAD_ENCODE_FAILED', `load: ${text}`), `load: ${flat}`],
    ['DiffError', () => DiffError.of('DIFF_UNREADABLE', `diff: ${text}`), `diff: ${flat}`],
    ['CheckpointError', () => CheckpointError.of('LOCKED', `staging: ${text}`), `staging: ${flat}`],
    ['UsageError', () => new UsageError(`--config: ${text}`), `--config: ${flat}`],
  ])('%s has a one-line message', (name, make, message) => {
    const error = make();
    expect(error.name).toBe(name);
    expect(error.message).toBe(message);
  });

  it('keeps the code, the fields and the cause it is given, and has no cause when given none', () => {
    const cause = new Error('reset');
    const fields = {
      code: 'HTTP_STATUS',
      url: 'http://h/api/images/?offset=0',
      reason: 'returned 429',
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
    } as const;
    const error = new ExtractError({ ...fields, cause });
    expect({ ...error, cause: error.cause }).toEqual({ name: 'ExtractError', ...fields, cause });
    expect(LoadError.of('LOAD_WRITE_FAILED', 'load: x', cause).cause).toBe(cause);
    expect(DiffError.of('DIFF_NOT_FOUND', 'diff: x', cause).cause).toBe(cause);
    expect(new UsageError('--x: y', cause).cause).toBe(cause);
    expect('cause' in LoadError.of('LOAD_WRITE_FAILED', 'load: x')).toBe(false);
  });
});
