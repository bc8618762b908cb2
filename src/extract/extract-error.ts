import { oneLine } from '../text/one-line.js';
import { redactUrl, redactUrlsIn } from './redact-url.js';

/** Stable codes of extraction failures; the CLI maps them to messages and exit codes. */
export type ExtractErrorCode =
  | 'HTTP_STATUS' // a status that is not 200
  | 'NETWORK' // connection refused, reset, DNS, TLS, a response that is not HTTP
  | 'TIMEOUT' // connect, headers or body took too long
  | 'BAD_BODY' // 200 but not a valid page: not JSON, truncated, wrong content type, too large, bad envelope
  | 'BAD_REDIRECT' // a redirect without a usable Location (missing, unparseable, not http or https)
  | 'FOREIGN_LINK' // a URL, link or redirect off the base host
  | 'REDIRECT_LOOP' // a redirect back to a URL already visited, or too many redirects
  | 'IMPLAUSIBLE_COUNT' // a `count` past any real list, or growing faster than the list can be read
  | 'ABORTED'; // the run was cancelled

/** Longest reason kept in a message; a server's snippet can be long. */
const MAX_REASON_CHARS = 500;

/** What an ExtractError is made of. */
export interface ExtractErrorOptions {
  /** Stable code. */
  code: ExtractErrorCode;
  /** The URL that failed; credentials are masked in the error. */
  url: string;
  /** What happened, lowercase, with the bad value; made one line, credentials masked, cut at 500 characters. */
  reason: string;
  /** Whether the same request may succeed later. */
  retryable: boolean;
  /** HTTP status, when there was one. */
  status?: number;
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  retryAfterMs?: number;
  /** A status other than 200 came in DRF's own JSON answer (`{"detail": …}`), not a proxy's page (getPage, getJson). */
  drf?: boolean;
  /** The error behind this one, when there is one. */
  cause?: unknown;
}

/**
 * A failed page request: a stable code, the URL, whether a retry may help, and the cause.
 * The message is one line, `extract: GET <url> <reason>`, with credentials in URLs masked (see redactUrl).
 */
export class ExtractError extends Error {
  override readonly name = 'ExtractError';
  /** Stable code. */
  readonly code: ExtractErrorCode;
  /** The URL that failed, credentials masked. */
  readonly url: string;
  /** What happened, lowercase, with the bad value; one line, credentials masked. */
  readonly reason: string;
  /** Whether the same request may succeed later. */
  readonly retryable: boolean;
  /** HTTP status, when there was one. */
  readonly status?: number;
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterMs?: number;
  /** A status other than 200 came in DRF's own JSON answer (`{"detail": …}`), not a proxy's page (getPage, getJson). */
  readonly drf?: boolean;

  constructor({ code, url, reason, retryable, status, retryAfterMs, drf, cause }: ExtractErrorOptions) {
    const safeUrl = oneLine(redactUrl(url));
    const safeReason = oneLine(redactUrlsIn(reason), MAX_REASON_CHARS);
    super(`extract: GET ${safeUrl} ${safeReason}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.url = safeUrl;
    this.reason = safeReason;
    this.retryable = retryable;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.drf = drf;
  }
}
