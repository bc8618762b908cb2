/** Stable codes of extraction failures; the CLI maps them to messages and exit codes. */
export type ExtractErrorCode =
  | 'HTTP_STATUS' // a status that is not 200
  | 'NETWORK' // connection refused, reset, DNS, TLS
  | 'TIMEOUT' // connect, headers or body took too long
  | 'BAD_BODY' // 200 but not a valid page: not JSON, truncated, wrong content type, too large, bad envelope
  | 'FOREIGN_LINK' // a link or redirect to another host
  | 'REDIRECT_LOOP' // too many redirects
  | 'ABORTED'; // the run was cancelled

/** A failed page request: a stable code, the URL, the attempt, whether a retry may help, and the cause. */
export class ExtractError extends Error {
  override readonly name = 'ExtractError';
  constructor(
    /** Stable code. */
    readonly code: ExtractErrorCode,
    /** The URL that failed. */
    readonly url: string,
    /** What happened, lowercase, with the bad value. */
    readonly reason: string,
    /** Whether the same request may succeed later. */
    readonly retryable: boolean,
    /** HTTP status, when there was one. */
    readonly status?: number,
    /** Seconds the server asked us to wait (Retry-After), when it did. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(`extract: GET ${url} ${reason}`, options);
  }
}
