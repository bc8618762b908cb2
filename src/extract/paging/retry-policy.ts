/** Which failed requests are retried, how often and how long apart: one policy object read by withRetry. */
import type { ExtractErrorCode, ExtractErrorKinds, Failure } from './extract-error-code.js';

/** How a failure is decided: retried (true), never (false), or retried unless its body is DRF's own JSON answer. */
type Decision = boolean | 'unless-drf';

/** A decision for every code, and for every kind of the codes that have kinds. */
type Decisions = {
  [C in ExtractErrorCode]: C extends keyof ExtractErrorKinds ? Record<ExtractErrorKinds[C], Decision> : Decision;
};

/**
 * Which failed requests are retried, and how often and how long we wait: undici's retry options (`statusCodes`,
 * `errorCodes`, `maxRetries`, `minTimeout`, `timeoutFactor`, `maxTimeout`) for our failures. Throw sites say what
 * happened (ExtractError's code and kind); this decides, and withRetry reads its attempts and waits.
 */
export const RETRY_POLICY = {
  /** Statuses retried whatever their body and kind: timeouts, rate limits, server and gateway errors (52x too). */
  statusCodes: [408, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 525, 526, 527, 530],
  /** Every other failure, by code and kind. */
  decisions: {
    HTTP_STATUS: {
      status: false, // 400, 401, 404 … of a request that expects a page: asking again gets the same
      answer: 'unless-drf', // 403 private, 404 gone: the answer in DRF's JSON; a proxy's or firewall's page otherwise
      'listing-gone': true, // the collections list answered before the pass and not after: a rerun may help
    },
    NETWORK: {
      'unknown-host': false, // asking DNS again gets the same answer (a lookup that failed for now is `unreachable`)
      unreachable: true,
      other: true,
    },
    TIMEOUT: true,
    BAD_BODY: {
      truncated: true,
      'not-utf8': true,
      'not-json': true,
      'wrong-type': true,
      encoded: true,
      'too-large': true,
      'bad-envelope': true,
      'not-object': true,
      'wrong-record': true,
      'bad-link': false, // the service's own page links nowhere: it will again
      'too-many-records': false, // a page larger than any page may be: the service's, not the network's
      'bad-range': true, // fetched again (whole: the .part is restarted first)
      'other-version': true, // fetched again whole
      unfit: true, // fetched again: the bytes may have been damaged on the way
    },
    BAD_REDIRECT: { 'no-location': true, 'unreadable-location': true, 'not-http': false },
    FOREIGN_LINK: false,
    REDIRECT_LOOP: false,
    IMPLAUSIBLE_COUNT: false,
    ABORTED: false,
  } satisfies Decisions,
  /** Attempts per request, the first included (undici's maxRetries + 1). */
  attempts: 6,
  /** First backoff ceiling in ms, doubled each attempt, full jitter (undici's minTimeout, timeoutFactor 2). */
  baseDelayMs: 500,
  /** Largest backoff ceiling in ms (undici's maxTimeout). */
  maxDelayMs: 30_000,
  /** Least wait after a Retry-After, so `Retry-After: 0` cannot burn every attempt at once. */
  retryAfterFloorMs: 1_000,
  /** Longest Retry-After honoured in ms; a longer one fails the request. */
  retryAfterMaxMs: 120_000,
  /** Total time a request may spend over all its attempts, in ms. */
  budgetMs: 300_000,
} as const;

/** What the policy reads of a failure: what happened, its status and whether its body was DRF's JSON. */
export type FailureFacts = Failure & { status?: number; drf?: boolean };

/** Whether the same request may succeed later, by RETRY_POLICY. */
export function isRetried(failure: FailureFacts): boolean {
  const { code, kind, status, drf } = failure;
  if (code === 'HTTP_STATUS' && status !== undefined && statusRetried(status)) return true;
  const byCode: Decision | Record<string, Decision> = RETRY_POLICY.decisions[code];
  const decision = typeof byCode === 'object' ? byCode[kind!]! : byCode;
  return decision === 'unless-drf' ? drf !== true : decision;
}

/** Whether a status is one RETRY_POLICY retries whatever its body. */
function statusRetried(status: number): boolean {
  return (RETRY_POLICY.statusCodes as readonly number[]).includes(status);
}
