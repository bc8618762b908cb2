/**
 * The HTTP client every request goes through: one connection pool, the same-host rule, the token, timeouts and size
 * caps, and each failure turned into an ExtractError that says what happened.
 */
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { Page } from '../../schema/image-schema.js';
import { pageEnvelope } from './page-envelope.js';
import { JsonBytesError, parseJsonBody, type ParsedBody } from './parse-json-bytes.js';
import { ExtractError } from './extract-error.js';
import { parseRetryAfter } from './retry-after.js';
import { isSameHost, mayCarryCredentials } from './same-host.js';
import { TOKEN } from './token.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from '../defaults.js';

/** How pages are requested. */
export interface HttpClientOptions {
  /** Connections kept alive to the service; default 4. */
  connections?: number;
  /** Milliseconds to wait for the TCP/TLS connection; default headersTimeoutMs. */
  connectTimeoutMs?: number;
  /** Milliseconds to wait for the response headers; default 30,000. */
  headersTimeoutMs?: number;
  /** Milliseconds the body may stall between chunks; default 30,000. */
  bodyTimeoutMs?: number;
  /**
   * Milliseconds one getPage may take in all, redirects and body included (a body trickled byte by byte ends here);
   * default 300,000, and never less than headersTimeoutMs + bodyTimeoutMs.
   */
  requestTimeoutMs?: number;
  /** Largest body accepted, in bytes; default 64 MiB. */
  maxBodyBytes?: number;
  /** Redirects followed within the same host; default 5. */
  maxRedirects?: number;
  /**
   * Token sent as `Authorization: Token …`, to the base host only (and never over http when the base is https); default
   * none.
   */
  token?: string;
  /** User-Agent header; default `img-etl`. */
  userAgent?: string;
}

type ResponseData = Dispatcher.ResponseData;

/** A JSON document as fetched: its status, the parsed value and the body it was parsed from. */
export interface FetchedJson {
  /** 200, or a status the caller allowed. */
  status: number;
  /** The parsed body. */
  value: unknown;
  /** The body's bytes as received. */
  bytes: Uint8Array;
  /** The bytes as Latin-1 text, when the parse made it (ParsedBody). */
  text?: string;
}

/** A file response whose headers arrived: its body is the caller's to read (or destroy). */
export interface FileResponse {
  /** The URL that answered, after redirects. */
  url: string;
  /** 200, 206 or 416. */
  status: number;
  /** A response header by lower-case name. */
  header(name: string): string | undefined;
  /** The body, unread. */
  body: NodeJS.ReadableStream;
  /** Drops the body unread and closes the connection (its abort error is swallowed). */
  discard(): void;
}

/** A page as fetched: the validated envelope and the body it was parsed from. */
export interface FetchedPage {
  /** The validated envelope. */
  page: Page;
  /** The body's bytes as received (kept by the staging folder as they are). */
  bytes: Uint8Array;
  /** The bytes as Latin-1 text, when the parse made it (ParsedBody). */
  text?: string;
}

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
/** Most of an error or redirect body read (for a `detail` message) or drained before the connection is dropped. */
const ERROR_BODY_BYTES = 16 * 1024;

/** The statuses a caller reads as the service's answer when DRF's JSON says them, and what becomes of them. */
interface Answers {
  statuses: readonly number[];
  /** Returned like a 200 (getJson), or thrown as an ExtractError marked `drf` (getPage). */
  returned: boolean;
}

/** An error body: DRF's JSON answer (its value and bytes, ` (detail)` for a message) or anything else. */
type ErrorBody = { drf: true; detail: string; value: unknown; bytes: Uint8Array } | { drf: false; detail: '' };

/** A keep-alive HTTP client for pages and records: a page is a validated envelope or an ExtractError, never garbage. */
export class HttpClient {
  private readonly agent: UndiciAgent;
  private readonly options: Required<Omit<HttpClientOptions, 'token'>> & { token?: string };

  constructor(
    /** The service's base URL; the pages asked for, and every redirect, must stay on its host. */
    readonly baseUrl: URL,
    options: HttpClientOptions = {},
  ) {
    if (options.token !== undefined && !TOKEN.test(options.token))
      throw new TypeError('extract: the token must be visible ASCII characters without spaces');
    const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.options = {
      connections: options.connections ?? 4,
      connectTimeoutMs: options.connectTimeoutMs ?? headersTimeoutMs,
      headersTimeoutMs,
      bodyTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? Math.max(300_000, headersTimeoutMs + bodyTimeoutMs),
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      maxRedirects: options.maxRedirects ?? 5,
      userAgent: options.userAgent ?? 'img-etl',
      token: options.token,
    };
    this.agent = new Agent({
      connections: this.options.connections,
      keepAliveTimeout: 10_000,
      headersTimeout: this.options.headersTimeoutMs,
      bodyTimeout: this.options.bodyTimeoutMs,
      connect: { timeout: this.options.connectTimeoutMs },
    });
  }

  /**
   * GETs one list page on the base host, following same-host redirects, and validates its envelope; returns the page
   * and its body as received. A status in `answers` (a collection's list: 403 private, 404 deleted) is an ExtractError
   * marked `drf` and not retried when DRF's JSON says it; in any other body it is a failure to read the page, retried.
   */
  async getPage(url: string, signal?: AbortSignal, answers: readonly number[] = []): Promise<FetchedPage> {
    const { value, bytes, text } = await this.fetchJson(url, signal, { statuses: answers, returned: false });
    const envelope = pageEnvelope(value);
    if (envelope !== undefined) return { page: envelope, bytes, text };
    // zod (loaded only now) says what is wrong; PageSchema is the definition the quick check above follows.
    const { PageSchema } = await import('../../schema/image-schema.js');
    const page = PageSchema.safeParse(value);
    if (!page.success) {
      const issue = page.error.issues[0]!;
      const where = issue.path.map(String).join('.') || 'body';
      const reason = `returned a page without a valid envelope (${where}: ${issue.message})`;
      throw new ExtractError({ code: 'BAD_BODY', kind: 'bad-envelope', url, reason, status: 200 });
    }
    return { page: page.data, bytes, text };
  }

  /**
   * GETs a JSON document on the base host, following same-host redirects, with the checks of a page (status,
   * content type, encoding, size, UTF-8, JSON). A status in `allowed` whose body is DRF's JSON answer (`{"detail": …}`)
   * is returned like a 200; in any other body it is a failure to read the answer, retried; any other status is an
   * ExtractError.
   */
  async getJson(url: string, signal?: AbortSignal, allowed: readonly number[] = []): Promise<FetchedJson> {
    return this.fetchJson(url, signal, { statuses: allowed, returned: true });
  }

  /** GETs a JSON document; `answers` as getJson and getPage say. */
  private async fetchJson(url: string, signal: AbortSignal | undefined, answers: Answers): Promise<FetchedJson> {
    const deadline = new Deadline(this.options.requestTimeoutMs, signal);
    try {
      const { target, response } = await this.follow(url, deadline);
      return await this.readJson(target.href, response, deadline, answers);
    } finally {
      deadline.clear();
    }
  }

  /**
   * GETs a file on the base host, following same-host redirects, with `range` as its Range header when given (and
   * `ifRange` as its If-Range: the whole file, 200, when it is no longer that version); resolves once the headers of
   * a 200, 206 or 416 arrive, with the body unread. Any other status is an ExtractError, retryable as for a page. The
   * request's total time limit covers the wait for the headers only: the body may take as long as it flows (each
   * chunk within the body timeout); the caller reads it, and `fileBodyError` names a failure while it does.
   */
  async getFile(
    url: string,
    options: { signal?: AbortSignal; range?: string; ifRange?: string } = {},
  ): Promise<FileResponse> {
    const deadline = new Deadline(this.options.requestTimeoutMs, options.signal);
    const extra: Record<string, string> = { accept: '*/*' };
    if (options.range !== undefined) extra['range'] = options.range;
    if (options.range !== undefined && options.ifRange !== undefined) extra['if-range'] = options.ifRange;
    try {
      const { target, response } = await this.follow(url, deadline, extra);
      const { statusCode } = response;
      // any other status is an HTTP_STATUS error: for a file, no status is the service's answer
      if (statusCode !== 200 && statusCode !== 206 && statusCode !== 416)
        await statusAnswer(target.href, response, deadline, { statuses: [], returned: false });
      return fileResponse(target, response);
    } finally {
      deadline.clear();
    }
  }

  /** GETs `url` on the base host, following same-host redirects, up to the first answer that is not a redirect. */
  private async follow(
    url: string,
    deadline: Deadline,
    extra?: Record<string, string>,
  ): Promise<{ target: URL; response: ResponseData }> {
    let target = this.pageTarget(url);
    const visited = new Set([target.href]);
    for (let hop = 0; ; hop++) {
      const response = await this.send(target, deadline, extra);
      if (!REDIRECT_STATUS.has(response.statusCode)) return { target, response };
      await drain(response, deadline);
      target = this.redirectTarget(target, response, hop, visited);
    }
  }

  /** The ExtractError for a failure while a file's body was read: a stalled body, a connection closed early. */
  fileBodyError(url: string, err: unknown, received: number, declared: number): ExtractError {
    if (err instanceof ExtractError) return err;
    const timeout = this.timeoutError(url, err);
    if (timeout !== undefined) return timeout;
    if (received < declared) {
      const reason = `returned a truncated body (${received} of ${declared} bytes, then the connection closed)`;
      return new ExtractError({ code: 'BAD_BODY', kind: 'truncated', url, reason, cause: err });
    }
    return new ExtractError({ code: 'NETWORK', kind: 'other', url, reason: `failed (${describe(err)})`, cause: err });
  }

  /** Closes the kept-alive connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private pageTarget(url: string): URL {
    const target = URL.canParse(url) ? new URL(url) : undefined;
    if (target === undefined || !isSameHost(target, this.baseUrl)) {
      const reason = `is not an http(s) URL on the base host (${this.baseUrl.host}); refusing to request it`;
      throw new ExtractError({ code: 'FOREIGN_LINK', url, reason });
    }
    return target;
  }

  private async send(url: URL, deadline: Deadline, extra: Record<string, string> = {}): Promise<ResponseData> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': 'identity',
      'user-agent': this.options.userAgent,
      ...extra,
    };
    if (this.options.token !== undefined && mayCarryCredentials(url, this.baseUrl))
      headers['authorization'] = `Token ${this.options.token}`;
    try {
      return await request(url, { dispatcher: this.agent, method: 'GET', headers, signal: deadline.signal });
    } catch (err) {
      throw this.networkError(url.href, err, deadline);
    }
  }

  private redirectTarget(from: URL, response: Dispatcher.ResponseData, hop: number, visited: Set<string>): URL {
    const target = redirectLocation(from, response);
    const url = from.href;
    const status = response.statusCode;
    if (!isSameHost(target, this.baseUrl)) {
      const reason = `redirected to another host (${target.host}); refusing to follow`;
      throw new ExtractError({ code: 'FOREIGN_LINK', url, reason, status });
    }
    const loop = (reason: string) => new ExtractError({ code: 'REDIRECT_LOOP', url, reason, status });
    if (visited.has(target.href)) throw loop(`redirected in a loop, back to ${target.href}`);
    if (hop + 1 > this.options.maxRedirects) throw loop(`redirected more than ${this.options.maxRedirects} times`);
    visited.add(target.href);
    return target;
  }

  private async readJson(
    url: string,
    response: Dispatcher.ResponseData,
    deadline: Deadline,
    answers: Answers,
  ): Promise<FetchedJson> {
    const { statusCode } = response;
    if (statusCode !== 200) return statusAnswer(url, response, deadline, answers);
    await refuseUnaskedBody(url, response, deadline);
    const bytes = await this.readBody(url, response, deadline);
    return { status: statusCode, ...parsedJson(url, bytes, statusCode), bytes };
  }

  private async readBody(url: string, response: Dispatcher.ResponseData, deadline: Deadline): Promise<Uint8Array> {
    const cap = this.options.maxBodyBytes;
    const declared = Number(response.headers['content-length']);
    if (declared > cap) {
      drop(response);
      const reason = `returned a body of ${declared} bytes, over the ${cap}-byte cap`;
      throw new ExtractError({ code: 'BAD_BODY', kind: 'too-large', url, reason, status: response.statusCode });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > cap) {
          drop(response);
          const reason = `returned a body over the ${cap}-byte cap (stopped reading at ${size} bytes)`;
          throw new ExtractError({ code: 'BAD_BODY', kind: 'too-large', url, reason, status: response.statusCode });
        }
        chunks.push(chunk);
      }
    } catch (err) {
      throw this.bodyReadError(url, response, err, { size, declared }, deadline);
    }
    if (!Number.isNaN(declared) && size !== declared) {
      const reason = `returned a truncated body (${size} of ${declared} bytes)`;
      throw new ExtractError({ code: 'BAD_BODY', kind: 'truncated', url, reason, status: response.statusCode });
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  }

  /** The error for a body whose reading failed after `size` of `declared` bytes: truncated, or the network's. */
  private bodyReadError(
    url: string,
    response: Dispatcher.ResponseData,
    err: unknown,
    { size, declared }: { size: number; declared: number },
    deadline: Deadline,
  ): ExtractError {
    if (err instanceof ExtractError) return err;
    const closedEarly = size < declared && !deadline.signal.aborted && !(err instanceof undiciErrors.BodyTimeoutError);
    if (closedEarly) {
      const reason = `returned a truncated body (${size} of ${declared} bytes, then the connection closed)`;
      const status = response.statusCode;
      return new ExtractError({ code: 'BAD_BODY', kind: 'truncated', url, reason, status, cause: err });
    }
    return this.networkError(url, err, deadline);
  }

  /** The TIMEOUT error of the timeout that ended the request (TIMEOUTS), naming its value; undefined for none. */
  private timeoutError(url: string, err: unknown, deadline?: Deadline): ExtractError | undefined {
    const timeout = TIMEOUTS.find(({ hit }) => hit(err, deadline));
    if (timeout === undefined) return undefined;
    const reason = timeout.reason.replace('MS', String(this.options[timeout.option]));
    return new ExtractError({ code: 'TIMEOUT', url, reason, cause: err });
  }

  private networkError(url: string, err: unknown, deadline: Deadline): ExtractError {
    if (deadline.cancelled) return new ExtractError({ code: 'ABORTED', url, reason: 'was cancelled', cause: err });
    const timeout = this.timeoutError(url, err, deadline);
    if (timeout !== undefined) return timeout;
    const { kind, why } = unreachable(url, err);
    return new ExtractError({ code: 'NETWORK', kind, url, reason: `failed (${describe(err)}${why})`, cause: err });
  }
}

/** Each timeout a request has: the option that sets it, how its failure is told, and the reason its error gives. */
const TIMEOUTS: { option: TimeoutOption; hit: (err: unknown, deadline?: Deadline) => boolean; reason: string }[] = [
  {
    option: 'requestTimeoutMs',
    hit: (_, deadline) => deadline?.expired === true,
    reason: 'took longer than MS ms in all',
  },
  {
    option: 'connectTimeoutMs',
    hit: (err) => err instanceof undiciErrors.ConnectTimeoutError,
    reason: 'timed out connecting (MS ms)',
  },
  {
    option: 'headersTimeoutMs',
    hit: (err) => err instanceof undiciErrors.HeadersTimeoutError,
    reason: 'timed out waiting for the response headers (MS ms)',
  },
  {
    option: 'bodyTimeoutMs',
    hit: (err) => err instanceof undiciErrors.BodyTimeoutError,
    reason: 'timed out: the body stalled for MS ms',
  },
];
type TimeoutOption = 'requestTimeoutMs' | 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs';
/** The time one getPage may take, and the caller's cancellation, as one signal. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** The time ran out. */
  expired = false;

  constructor(
    private readonly ms: number,
    private readonly parent?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new Error(`deadline of ${this.ms} ms passed`));
    }, ms);
    this.timer.unref();
    if (parent?.aborted) this.controller.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
  }

  /** Aborts when the caller cancels or the time runs out. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The caller cancelled. */
  get cancelled(): boolean {
    return this.parent?.aborted === true;
  }

  /** Stops the timer and lets go of the caller's signal. */
  clear(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }

  private readonly onParentAbort = (): void => this.controller.abort(this.parent?.reason);
}

/** Reads and drops what is left of a response's body (at most ERROR_BODY_BYTES), so that its connection is kept. */
async function drain(response: Dispatcher.ResponseData, deadline: Deadline): Promise<void> {
  await response.body.dump({ limit: ERROR_BODY_BYTES, signal: deadline.signal }).catch(() => undefined);
}

/**
 * Closes a response's body early; the error listener keeps the stream's abort error from becoming an uncaught
 * exception.
 */
function drop(response: Dispatcher.ResponseData): void {
  response.body.on('error', () => undefined).destroy();
}

/**
 * What an error body is: DRF's own JSON answer (a JSON object with a string `detail`: `drf`, its value and bytes, and
 * ` (detail)` for a message), or anything else (a proxy's page: `drf` false, no detail). Reads at most ERROR_BODY_BYTES
 * and never throws.
 */
async function errorBody(response: Dispatcher.ResponseData, signal: AbortSignal): Promise<ErrorBody> {
  const other = { drf: false, detail: '' } as const;
  if (!/json/i.test(String(response.headers['content-type'] ?? ''))) {
    await response.body.dump({ limit: ERROR_BODY_BYTES, signal }).catch(() => undefined);
    return other;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > ERROR_BODY_BYTES) {
        drop(response);
        return other;
      }
    }
    const bytes = Buffer.concat(chunks);
    const value = JSON.parse(bytes.toString('utf8')) as unknown;
    const detail = (value as { detail?: unknown } | null)?.detail;
    if (typeof detail !== 'string') return other;
    return { drf: true, detail: detail === '' ? '' : ` (${detail.slice(0, 200)})`, value, bytes };
  } catch {
    return other;
  }
}

/** The http(s) URL a redirect's location names (without its fragment); a BAD_REDIRECT when there is none. */
function redirectLocation(from: URL, response: Dispatcher.ResponseData): URL {
  const status = response.statusCode;
  const refuse = (kind: 'no-location' | 'unreadable-location' | 'not-http', reason: string) =>
    new ExtractError({ code: 'BAD_REDIRECT', kind, url: from.href, reason, status });
  const location = response.headers['location'];
  const text = (Array.isArray(location) ? location[0] : location)?.trim();
  if (text === undefined || text === '')
    throw refuse('no-location', `returned a ${status} redirect without a location`);
  let target: URL;
  try {
    target = new URL(text, from);
  } catch {
    const shown = JSON.stringify(text.slice(0, 200));
    throw refuse('unreadable-location', `returned a ${status} redirect to an unreadable location ${shown}`);
  }
  target.hash = '';
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw refuse('not-http', `redirected to a ${target.protocol} URL; only http and https are followed`);
  return target;
}

/** A status other than 200: DRF's answer when the caller returns it, else an HTTP_STATUS error. */
async function statusAnswer(
  url: string,
  response: Dispatcher.ResponseData,
  deadline: Deadline,
  answers: Answers,
): Promise<FetchedJson> {
  const { statusCode, headers } = response;
  const body = await errorBody(response, deadline.signal);
  if (body.drf && answers.returned && answers.statuses.includes(statusCode))
    return { status: statusCode, value: body.value, bytes: body.bytes };
  throw new ExtractError({
    code: 'HTTP_STATUS',
    kind: answers.statuses.includes(statusCode) ? 'answer' : 'status',
    url,
    reason: `returned ${statusCode}${body.detail}`,
    status: statusCode,
    retryAfterMs: parseRetryAfter(headers['retry-after']),
    drf: body.drf,
  });
}

/** Throws (draining the body) for a 200 that is not JSON or is encoded when no encoding was asked for. */
async function refuseUnaskedBody(url: string, response: Dispatcher.ResponseData, deadline: Deadline): Promise<void> {
  const { statusCode, headers } = response;
  const refuse = async (kind: 'wrong-type' | 'encoded', reason: string) => {
    await drain(response, deadline);
    return new ExtractError({ code: 'BAD_BODY', kind, url, reason, status: statusCode });
  };
  const type = String(headers['content-type'] ?? '');
  if (!JSON_TYPE.test(type))
    throw await refuse('wrong-type', `returned content type ${JSON.stringify(type)}, not JSON`);
  const encoding = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding !== '' && encoding !== 'identity')
    throw await refuse(
      'encoded',
      `returned a body with content-encoding ${JSON.stringify(encoding)}, which was not asked for`,
    );
}

/** The body parsed as JSON (with its Latin-1 text, when made); a BAD_BODY error when it is not UTF-8 or not JSON. */
function parsedJson(url: string, bytes: Uint8Array, status: number): ParsedBody {
  try {
    return parseJsonBody(bytes);
  } catch (err) {
    if (!(err instanceof JsonBytesError)) throw err;
    const kind = err.code === 'UTF8' ? 'not-utf8' : 'not-json';
    const reason =
      kind === 'not-utf8'
        ? 'returned a body that is not valid UTF-8'
        : `returned a body that is not valid JSON (${err.message})`;
    throw new ExtractError({ code: 'BAD_BODY', kind, url, reason, status, cause: err });
  }
}

/** A file response whose headers arrived from `url`, its body unread. */
function fileResponse(url: URL, response: Dispatcher.ResponseData): FileResponse {
  const { statusCode, headers } = response;
  const header = (name: string): string | undefined => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return { url: url.href, status: statusCode, header, body: response.body, discard: () => drop(response) };
}

/**
 * What a network failure means, said after its code: DNS knows no such host (ENOTFOUND), or the host did not answer (a
 * refused connection: nothing listens at the URL's address; a DNS lookup that failed for now: no network?).
 */
function unreachable(url: string, err: unknown): { kind: 'unknown-host' | 'unreachable' | 'other'; why: string } {
  const codes = [err, (err as { cause?: unknown } | null)?.cause].map((e) => (e as { code?: unknown } | null)?.code);
  const { origin, hostname } = new URL(url);
  if (codes.includes('ENOTFOUND')) return { kind: 'unknown-host', why: `: the host ${hostname} could not be found` };
  if (codes.includes('EAI_AGAIN'))
    return { kind: 'unreachable', why: `: DNS did not answer for ${hostname}; is there a network?` };
  if (codes.includes('ECONNREFUSED'))
    return { kind: 'unreachable', why: `: the service is not reachable at ${origin}; is it running there?` };
  return { kind: 'other', why: '' };
}

/** One line naming a network failure: its code and message, without repeating the code. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error && err.cause.message !== err.message ? `: ${err.cause.message}` : '';
  const text = `${err.message}${cause}`;
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
