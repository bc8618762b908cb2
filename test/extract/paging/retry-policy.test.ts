import { describe, expect, it } from 'vitest';
import { ExtractError } from '../../../src/extract/paging/extract-error.js';
import { isRetried, RETRY_POLICY, type FailureFacts } from '../../../src/extract/paging/retry-policy.js';

/** The policy as it stands: a change to RETRY_POLICY is a change to this table. */
const TABLE: [FailureFacts, boolean][] = [
  [{ code: 'HTTP_STATUS', kind: 'status', status: 400 }, false],
  [{ code: 'HTTP_STATUS', kind: 'status', status: 404 }, false],
  [{ code: 'HTTP_STATUS', kind: 'status', status: 502 }, true],
  [{ code: 'HTTP_STATUS', kind: 'answer', status: 404, drf: true }, false],
  [{ code: 'HTTP_STATUS', kind: 'answer', status: 404, drf: false }, true],
  [{ code: 'HTTP_STATUS', kind: 'answer', status: 403, drf: true }, false],
  [{ code: 'HTTP_STATUS', kind: 'answer', status: 403, drf: false }, true],
  [{ code: 'HTTP_STATUS', kind: 'answer', status: 503, drf: true }, true],
  [{ code: 'HTTP_STATUS', kind: 'listing-gone', status: 404 }, true],
  [{ code: 'NETWORK', kind: 'unknown-host' }, false],
  [{ code: 'NETWORK', kind: 'unreachable' }, true],
  [{ code: 'NETWORK', kind: 'other' }, true],
  [{ code: 'TIMEOUT' }, true],
  [{ code: 'BAD_BODY', kind: 'truncated' }, true],
  [{ code: 'BAD_BODY', kind: 'not-utf8' }, true],
  [{ code: 'BAD_BODY', kind: 'not-json' }, true],
  [{ code: 'BAD_BODY', kind: 'wrong-type' }, true],
  [{ code: 'BAD_BODY', kind: 'encoded' }, true],
  [{ code: 'BAD_BODY', kind: 'too-large' }, true],
  [{ code: 'BAD_BODY', kind: 'bad-envelope' }, true],
  [{ code: 'BAD_BODY', kind: 'not-object' }, true],
  [{ code: 'BAD_BODY', kind: 'wrong-record' }, true],
  [{ code: 'BAD_BODY', kind: 'bad-link' }, false],
  [{ code: 'BAD_BODY', kind: 'too-many-records' }, false],
  [{ code: 'BAD_BODY', kind: 'bad-range', status: 416 }, true],
  [{ code: 'BAD_BODY', kind: 'other-version', status: 206 }, true],
  [{ code: 'BAD_BODY', kind: 'unfit' }, true],
  [{ code: 'BAD_REDIRECT', kind: 'no-location' }, true],
  [{ code: 'BAD_REDIRECT', kind: 'unreadable-location' }, true],
  [{ code: 'BAD_REDIRECT', kind: 'not-http' }, false],
  [{ code: 'FOREIGN_LINK' }, false],
  [{ code: 'REDIRECT_LOOP' }, false],
  [{ code: 'IMPLAUSIBLE_COUNT' }, false],
  [{ code: 'ABORTED' }, false],
];

describe('RETRY_POLICY', () => {
  it.each(TABLE)('decides %j: retried %s', (failure, retried) => {
    expect(isRetried(failure)).toBe(retried);
  });

  it('has a row in the table for every code and kind it decides', () => {
    const decided = Object.entries(RETRY_POLICY.decisions).flatMap(([code, byCode]) =>
      typeof byCode === 'object' ? Object.keys(byCode).map((kind) => `${code} ${kind}`) : [code],
    );
    const rows = new Set(TABLE.map(([{ code, kind }]) => (kind === undefined ? code : `${code} ${kind}`)));
    expect([...rows].sort()).toEqual(decided.sort());
  });

  it('retries these statuses whatever their body and kind, and waits as withRetry does by default', () => {
    const { decisions: _decisions, ...rest } = RETRY_POLICY;
    expect(rest).toEqual({
      statusCodes: [408, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 525, 526, 527, 530],
      attempts: 6,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      retryAfterFloorMs: 1_000,
      retryAfterMaxMs: 120_000,
      budgetMs: 300_000,
    });
    for (const status of RETRY_POLICY.statusCodes) {
      for (const kind of ['status', 'answer', 'listing-gone'] as const)
        for (const drf of [true, false]) expect(isRetried({ code: 'HTTP_STATUS', kind, status, drf })).toBe(true);
    }
  });

  it('leaves a status the caller does not read as an answer to the status, whatever the body', () => {
    for (const drf of [true, false]) {
      const decided = (status: number) => isRetried({ code: 'HTTP_STATUS', kind: 'status', status, drf });
      expect([400, 401, 403, 404, 410].map(decided)).toEqual([false, false, false, false, false]);
      expect([429, 500, 502, 503, 504].map(decided)).toEqual([true, true, true, true, true]);
    }
  });

  it("is an ExtractError's retryable, unless the error was made with one already decided", () => {
    const url = 'http://x/api/images/';
    const reason = 'returned a truncated body (3 of 9 bytes)';
    expect(new ExtractError({ code: 'BAD_BODY', kind: 'truncated', url, reason }).retryable).toBe(true);
    expect(new ExtractError({ code: 'BAD_BODY', kind: 'too-many-records', url, reason }).retryable).toBe(false);
    expect(new ExtractError({ code: 'BAD_BODY', url, reason, retryable: false }).retryable).toBe(false);
  });
});
