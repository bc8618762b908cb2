import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { PageSchema, type Page } from '../schema/image-schema.js';
import { ExtractError } from './extract-error.js';
import { parseRetryAfter } from './retry-after.js';
import { isSameHost } from './same-host.js';

/** How pages are requested. */
export interface HttpClientOptions {
  /** Connections kept alive to the service; default 4. */
  connections?: number;
  /** Milliseconds to wait for the connection and the response headers; default 30,000. */
  headersTimeoutMs?: number;
  /** Milliseconds the body may stall between chunks; default 30,000. */
  bodyTimeoutMs?: number;
  /** Largest body accepted, in bytes; default 64 MiB. */
  maxBodyBytes?: number;
  /** Redirects followed within the same host; default 5. */
  maxRedirects?: number;
  /** Token sent as `Authorization: Token …`, to the base host only; default none. */
  token?: string;
  /** User-Agent header; default `img-etl`. */
  userAgent?: string;
}

/** A page as fetched: the validated envelope and the body text it was parsed from. */
export interface FetchedPage {
  /** The validated envelope. */
  page: Page;
  /** The body as received (UTF-8 decoded). */
  text: string;
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 525, 526, 527, 530]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** A keep-alive HTTP client for list pages: a page is a validated envelope or an ExtractError, never garbage. */
export class HttpClient {
  private readonly agent: Agent;
  private readonly options: Required<Omit<HttpClientOptions, 'token'>> & { token?: string };

  constructor(
    /** The service's base URL; links and redirects must stay on its host. */
    readonly baseUrl: URL,
    options: HttpClientOptions = {},
  ) {
    this.options = {
      connections: options.connections ?? 4,
      headersTimeoutMs: options.headersTimeoutMs ?? 30_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
      maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
      maxRedirects: options.maxRedirects ?? 5,
      userAgent: options.userAgent ?? 'img-etl',
      token: options.token,
    };
    this.agent = new Agent({
      connections: this.options.connections,
      keepAliveTimeout: 10_000,
      headersTimeout: this.options.headersTimeoutMs,
      bodyTimeout: this.options.bodyTimeoutMs,
      connect: { timeout: this.options.headersTimeoutMs },
    });
  }

  /** GETs one list page, following same-host redirects, and validates its envelope; returns the page and its body text as received. */
  async getPage(url: string, signal?: AbortSignal): Promise<FetchedPage> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const response = await this.send(current, signal);
      if (REDIRECT_STATUS.has(response.statusCode)) {
        await response.body.dump().catch(() => undefined);
        current = this.redirectTarget(current, response.headers['location'], hop);
        continue;
      }
      return this.readPage(current, response, signal);
    }
  }

  /** Closes the kept-alive connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send(url: string, signal?: AbortSignal): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    if (this.options.token !== undefined && isSameHost(new URL(url), this.baseUrl)) headers['authorization'] = `Token ${this.options.token}`;
    try {
      return await request(url, { dispatcher: this.agent, method: 'GET', headers, signal });
    } catch (err) {
      throw this.networkError(url, err, signal);
    }
  }

  private redirectTarget(from: string, location: string | string[] | undefined, hop: number): string {
    const text = Array.isArray(location) ? location[0] : location;
    if (text === undefined) throw new ExtractError('BAD_BODY', from, 'returned a redirect without a location', true);
    const target = new URL(text, from);
    if (!isSameHost(target, this.baseUrl)) {
      throw new ExtractError('FOREIGN_LINK', from, `redirected to another host (${target.host}); refusing to follow`, false);
    }
    if (hop + 1 > this.options.maxRedirects) throw new ExtractError('REDIRECT_LOOP', from, `redirected more than ${this.options.maxRedirects} times`, false);
    return target.href;
  }

  private async readPage(url: string, response: Dispatcher.ResponseData, signal?: AbortSignal): Promise<FetchedPage> {
    const { statusCode, headers } = response;
    if (statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      const retryable = RETRYABLE_STATUS.has(statusCode);
      throw new ExtractError('HTTP_STATUS', url, `returned ${statusCode}`, retryable, statusCode, parseRetryAfter(headers['retry-after']));
    }
    const type = String(headers['content-type'] ?? '');
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      await response.body.dump().catch(() => undefined);
      throw new ExtractError('BAD_BODY', url, `returned content type ${JSON.stringify(type)}, not JSON`, true, statusCode);
    }
    const text = await this.readBody(url, response, signal);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new ExtractError('BAD_BODY', url, `returned a body that is not valid JSON (${(err as Error).message})`, true, statusCode, undefined, { cause: err });
    }
    const page = PageSchema.safeParse(parsed);
    if (!page.success) {
      const issue = page.error.issues[0]!;
      throw new ExtractError('BAD_BODY', url, `returned a page without a valid envelope (${issue.path.join('.') || 'body'}: ${issue.message})`, true, statusCode);
    }
    return { page: page.data, text };
  }

  private async readBody(url: string, response: Dispatcher.ResponseData, signal?: AbortSignal): Promise<string> {
    const declared = Number(response.headers['content-length']);
    if (declared > this.options.maxBodyBytes) {
      response.body.destroy();
      throw new ExtractError('BAD_BODY', url, `returned a body of ${declared} bytes, over the ${this.options.maxBodyBytes}-byte cap`, true, 200);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.options.maxBodyBytes) {
          response.body.destroy();
          throw new ExtractError('BAD_BODY', url, `returned a body over the ${this.options.maxBodyBytes}-byte cap`, true, 200);
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      throw this.networkError(url, err, signal);
    }
    if (!Number.isNaN(declared) && size !== declared) {
      throw new ExtractError('BAD_BODY', url, `returned a truncated body (${size} of ${declared} bytes)`, true, 200);
    }
    try {
      return UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    } catch (err) {
      throw new ExtractError('BAD_BODY', url, 'returned a body that is not valid UTF-8', true, 200, undefined, { cause: err });
    }
  }

  private networkError(url: string, err: unknown, signal?: AbortSignal): ExtractError {
    if (signal?.aborted) return new ExtractError('ABORTED', url, 'was cancelled', false, undefined, undefined, { cause: err });
    const e = err as { code?: string; message?: string };
    const timeout = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
    const what = timeout ? 'timed out' : `failed (${e.code ?? e.message ?? String(err)})`;
    return new ExtractError(timeout ? 'TIMEOUT' : 'NETWORK', url, what, true, undefined, undefined, { cause: err });
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
