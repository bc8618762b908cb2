/** ExtractError: the one error of extraction, with a stable code, the URL, the attempt and whether a retry may help. */
import { oneLine } from '../../text/one-line.js';
import type { ExtractErrorCode, ExtractErrorKind, Failure } from './extract-error-code.js';
import { redactUrl, redactUrlsIn } from './redact-url.js';
import { isRetried } from './retry-policy.js';

export type { ExtractErrorCode, ExtractErrorKind, ExtractErrorKinds } from './extract-error-code.js';

/** Longest reason kept in a message; a server's snippet can be long. */
const MAX_REASON_CHARS = 500;

/**
 * Whether a retry may help: decided by RETRY_POLICY from what happened (a Failure: the code, and the kind where the
 * code has kinds), or already decided (`retryable`): a copy of an ExtractError, a throw site outside extract.
 */
type Outcome = Failure | { code: ExtractErrorCode; kind?: ExtractErrorKind; retryable: boolean };

/** What an ExtractError is made of. */
export type ExtractErrorOptions = Outcome & {
  /** The URL that failed; credentials are masked in the error. */
  url: string;
  /** What happened, lowercase, with the bad value; made one line, credentials masked, cut at 500 characters. */
  reason: string;
  /** HTTP status, when there was one. */
  status?: number;
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  retryAfterMs?: number;
  /** A status other than 200 came in DRF's own JSON answer (`{"detail": …}`), not a proxy's page (getPage, getJson). */
  drf?: boolean;
  /** The error behind this one, when there is one. */
  cause?: unknown;
};

/**
 * A failed page request: a stable code, the URL, whether a retry may help, and the cause.
 * The message is one line, `extract: GET <url> <reason>`, with credentials in URLs masked (see redactUrl).
 */
export class ExtractError extends Error {
  override readonly name = 'ExtractError';
  /** Stable code. */
  readonly code: ExtractErrorCode;
  /** What happened, finer than the code, for the codes that have kinds. */
  readonly kind?: ExtractErrorKind;
  /** The URL that failed, credentials masked. */
  readonly url: string;
  /** What happened, lowercase, with the bad value; one line, credentials masked. */
  readonly reason: string;
  /** Whether the same request may succeed later: RETRY_POLICY's decision. */
  readonly retryable: boolean;
  /** HTTP status, when there was one. */
  readonly status?: number;
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterMs?: number;
  /** A status other than 200 came in DRF's own JSON answer (`{"detail": …}`), not a proxy's page (getPage, getJson). */
  readonly drf?: boolean;

  constructor(options: ExtractErrorOptions) {
    const { code, kind, url, reason, status, retryAfterMs, drf, cause } = options;
    const safeUrl = oneLine(redactUrl(url));
    const safeReason = oneLine(redactUrlsIn(reason), MAX_REASON_CHARS);
    super(`extract: GET ${safeUrl} ${safeReason}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.kind = kind;
    this.url = safeUrl;
    this.reason = safeReason;
    this.retryable = 'retryable' in options ? options.retryable : isRetried(options);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.drf = drf;
  }
}
