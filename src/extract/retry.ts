import { setTimeout as sleep } from 'node:timers/promises';
import { ExtractError } from './extract-error.js';

/** Statuses retried whatever their body: timeouts, rate limits, server and gateway errors (Cloudflare's 52x too). */
export const RETRYABLE_STATUS: ReadonlySet<number> = new Set([
  408, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 525, 526, 527, 530,
]);

/**
 * Whether a response of `status` may succeed when asked again. A status the caller reads as the service's answer
 * (`answers`: 404 gone, 403 private) is that answer only in DRF's own JSON (`drf`); in any other body (a proxy's or a
 * firewall's page) it is a failure to read the answer, retried like a 502.
 */
export function retryableStatus(status: number, drf: boolean, answers: readonly number[] = []): boolean {
  return RETRYABLE_STATUS.has(status) || (answers.includes(status) && !drf);
}

/** How failed requests are retried. */
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
  const attempts = options.attempts ?? 6;
  const budgetMs = options.budgetMs ?? 300_000;
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
        throw withAttempts(
          err,
          n,
          `; retry-after ${asked} s is longer than the ` +
            `${Math.round((options.retryAfterMaxMs ?? 120_000) / 1000)} s allowed`,
        );
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
    if (err.retryAfterMs > (options.retryAfterMaxMs ?? 120_000)) return undefined;
    return Math.max(err.retryAfterMs, options.retryAfterFloorMs ?? 1_000);
  }
  const ceiling = Math.min(options.maxDelayMs ?? 30_000, (options.baseDelayMs ?? 500) * 2 ** (n - 1));
  return Math.round((options.random ?? Math.random)() * ceiling);
}

function withAttempts(err: unknown, n: number, why = ''): unknown {
  if (!(err instanceof ExtractError) || (n === 1 && why === '')) return err;
  const after = n === 1 ? '' : ` after ${n} attempts`;
  return new ExtractError({
    code: err.code,
    url: err.url,
    reason: `${err.reason}${after}${why}`,
    retryable: err.retryable,
    status: err.status,
    retryAfterMs: err.retryAfterMs,
    drf: err.drf,
    cause: err.cause,
  });
}

/** The run was cancelled while a request failed or waited: say so, not the failure being retried. */
function cancelled(err: unknown): unknown {
  if (!(err instanceof ExtractError) || err.code === 'ABORTED') return err;
  return new ExtractError({ code: 'ABORTED', url: err.url, reason: 'was cancelled', retryable: false, cause: err });
}
