/**
 * Fetches one image's record by id (`/api/images/<id>/`) with the client's rules and retries; the library's
 * `fetchImage`.
 */
import { ExtractError } from './extract-error.js';
import type { RetryEvent } from './extract-events.js';
import { HttpClient, type HttpClientOptions } from './http-client.js';
import { imageUrlOf, listUrlOf } from './page-url.js';
import { withRetry, type RetryOptions } from './retry.js';
import { DEFAULT_BASE_URL } from '../defaults.js';

/** Where and how to fetch one image. */
export interface FetchImageOptions {
  /** The service's base URL; default `https://neurovault.org`. */
  baseUrl?: string;
  /** A client to reuse (its connections, token, timeouts), made for the same host; default a new one, closed after. */
  client?: HttpClient;
  /** Settings of the new client when none is given; defaults as HttpClientOptions says. */
  http?: HttpClientOptions;
  /** Retry settings; defaults as RetryOptions says. */
  retry?: RetryOptions;
  /** Cancels the request; default none. */
  signal?: AbortSignal;
  /** Hears about each retry; default none. */
  onEvent?: (event: RetryEvent) => void;
}

/** What the service says about one image: its record, or that it is gone (deleted, private, or never made). */
export type FetchedImage =
  | {
      status: 'ok';
      /** The record, parsed. */
      record: Record<string, unknown>;
      /** The body's bytes as received: the record's exact bytes in the list. */
      body: Uint8Array;
    }
  | { status: 'gone'; httpStatus: 404 };

/**
 * GETs `/api/images/<id>/` with the HTTP client's rules (same host, token, timeouts, size cap) and the retry policy
 * of list pages. DRF's 404 (`{"detail":"Not found."}`) resolves to `gone`; any other failure throws an ExtractError,
 * a 404 that is not DRF's (Django's HTML page for an unknown path: a wrong base URL; a proxy's page) included, after
 * its retries.
 */
export async function fetchImage(id: number, options: FetchImageOptions = {}): Promise<FetchedImage> {
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new TypeError(`extract: an image id must be a positive integer, got ${String(id)}`);
  }
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const url = imageUrlOf(baseUrl, id);
  const client = options.client ?? new HttpClient(listUrlOf(baseUrl), { connections: 1, ...options.http });
  try {
    return await withRetry(
      async () => {
        const { status, value, bytes } = await client.getJson(url, options.signal, [404]);
        if (status === 404) return { status: 'gone', httpStatus: 404 };
        const record = value as Record<string, unknown> | null;
        if (typeof record !== 'object' || record === null || Array.isArray(record)) {
          const reason = 'returned a body that is not a JSON object';
          throw new ExtractError({ code: 'BAD_BODY', kind: 'not-object', url, reason, status });
        }
        if (record['id'] !== id) {
          const reason = `returned the record of id ${JSON.stringify(record['id'])}, not ${id}`;
          throw new ExtractError({ code: 'BAD_BODY', kind: 'wrong-record', url, reason, status });
        }
        return { status: 'ok', record, body: bytes };
      },
      options.retry,
      (n) => options.onEvent?.({ type: 'retry', url, attempt: n.attempt, delayMs: n.delayMs, reason: n.error.reason }),
      options.signal,
    );
  } finally {
    if (options.client === undefined) await client.close().catch(() => undefined);
  }
}
