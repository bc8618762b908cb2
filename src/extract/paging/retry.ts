/** withRetry: runs a request again after a retryable failure, with backoff, within an attempt and a time budget. */
import { setTimeout as sleep } from 'node:timers/promises';
import { ExtractError } from './extract-error.js';
import { RETRY_POLICY } from './retry-policy.js';

/** How failed requests are retried; each default is RETRY_POLICY's. */
export interface RetryOptions {
  /** Attempts per request, the first included; default 6. */
  attempts?: number;
  /** First backoff ceiling in ms, doubled each attempt (full jitter: a random wait up to it); default 500. */
  baseDelayMs?: number;
  /** Largest backoff ceiling in ms; default 30,000. */
  maxDelayMs?: number;
  /** Least wait after a Retry-After, so `Retry-After: 0` cannot burn every attempt at once; default 1,000. */
  retryAfterFloorMs?: number;
  /** Longest Retry-After honoured in ms (longer ones fail the request); default 120,000. */
  retryAfterMaxMs?: number;
  /** Total time a request may spend over all its attempts, in ms; default 300,000. */
  budgetMs?: number;
  /** Random source in [0, 1); default Math.random. */
  random?: () => number;
}

/** What the caller hears about each retry. */
export interface RetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** The failure. */
  error: ExtractError;
  /** How long we wait before the next attempt. */
  delayMs: number;
}

/**
 * Runs `attempt` until it succeeds, retrying retryable ExtractErrors with exponential backoff and full jitter within
 * the attempt and time budgets.
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryOptions = {},
  onRetry?: (notice: RetryNotice) => void,
  signal?: AbortSignal,
): Promise<T> {
  const attempts = options.attempts ?? RETRY_POLICY.attempts;
  const budgetMs = options.budgetMs ?? RETRY_POLICY.budgetMs;
  const started = Date.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (signal?.aborted) throw cancelled(err);
      if (!(err instanceof ExtractError) || !err.retryable || n >= attempts) throw withAttempts(err, n);
      const delayMs = retryDelay(n, err, options);
      if (delayMs === undefined) {
        const asked = Math.ceil((err.retryAfterMs ?? 0) / 1000);
        const allowed = Math.round((options.retryAfterMaxMs ?? RETRY_POLICY.retryAfterMaxMs) / 1000);
        throw withAttempts(err, n, `; retry-after ${asked} s is longer than the ${allowed} s allowed`);
      }
      if (Date.now() - started + delayMs > budgetMs)
        throw withAttempts(err, n, `; the ${budgetMs} ms retry budget is spent`);
      onRetry?.({ attempt: n, error: err, delayMs });
      await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      if (signal?.aborted) throw cancelled(err);
    }
  }
}

/**
 * The wait before attempt n+1: the server's Retry-After (floored) if it gave one, else full jitter over an exponential
 * ceiling; undefined when the server asks for longer than we wait.
 */
export function retryDelay(n: number, err: ExtractError, options: RetryOptions = {}): number | undefined {
  if (err.retryAfterMs !== undefined) {
    if (err.retryAfterMs > (options.retryAfterMaxMs ?? RETRY_POLICY.retryAfterMaxMs)) return undefined;
    return Math.max(err.retryAfterMs, options.retryAfterFloorMs ?? RETRY_POLICY.retryAfterFloorMs);
  }
  const ceiling = Math.min(
    options.maxDelayMs ?? RETRY_POLICY.maxDelayMs,
    (options.baseDelayMs ?? RETRY_POLICY.baseDelayMs) * 2 ** (n - 1),
  );
  return Math.round((options.random ?? Math.random)() * ceiling);
}

function withAttempts(err: unknown, n: number, why = ''): unknown {
  if (!(err instanceof ExtractError) || (n === 1 && why === '')) return err;
  const after = n === 1 ? '' : ` after ${n} attempts`;
  // The same error (its code, kind, URL, status, retryability) with what the attempts add to its reason.
  return new ExtractError({ ...err, reason: `${err.reason}${after}${why}`, cause: err.cause });
}

/** The run was cancelled while a request failed or waited: say so, not the failure being retried. */
function cancelled(err: unknown): unknown {
  if (!(err instanceof ExtractError) || err.code === 'ABORTED') return err;
  return new ExtractError({ code: 'ABORTED', url: err.url, reason: 'was cancelled', cause: err });
}
