/**
 * The parts of undici the HTTP client uses (Agent, its errors, the request API), loaded from their own modules.
 * undici's index also loads every other dispatcher, the mocks, the caches, the interceptors and fetch: 90 ms of
 * start-up before a run's first request (measured: the first request left 330-376 ms after the process started,
 * 218-270 ms with these three). Should a later undici lay its files out otherwise, the index is loaded instead:
 * slower to start, the same behaviour.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/** What a GET needs; undici's own `request` takes more. */
export interface RequestOptions {
  dispatcher: Undici.Dispatcher;
  method: 'GET';
  headers: Record<string, string>;
  signal: AbortSignal;
}

export interface UndiciParts {
  Agent: typeof Undici.Agent;
  errors: typeof Undici.errors;
  request: (url: URL, options: RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;
  /** Where they came from: 'modules' (the quick way) or 'index'. */
  source: 'modules' | 'index';
}

type RequestApi = (this: Undici.Dispatcher, options: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;

/** Loads the parts with `require` (a test passes one that fails on undici's own modules, to reach the fallback). */
export function loadUndiciParts(require: (id: string) => unknown = createRequire(import.meta.url)): UndiciParts {
  try {
    const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
    const errors = require('undici/lib/core/errors.js') as typeof Undici.errors;
    const api = require('undici/lib/api/index.js') as { request?: RequestApi };
    const requestApi = api.request;
    if (typeof Agent !== 'function' || typeof requestApi !== 'function' || typeof errors.BodyTimeoutError !== 'function') throw new Error('undici: unexpected layout');
    // What undici's top-level request() does with a URL before it calls the dispatcher's request().
    const request = (url: URL, { dispatcher, ...options }: RequestOptions) =>
      requestApi.call(dispatcher, { ...options, origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname });
    return { Agent, errors, request, source: 'modules' };
  } catch {
    const undici = require('undici') as typeof Undici;
    return { Agent: undici.Agent, errors: undici.errors, request: (url, options) => undici.request(url, options), source: 'index' };
  }
}

export const { Agent, errors, request, source: undiciSource } = loadUndiciParts();
