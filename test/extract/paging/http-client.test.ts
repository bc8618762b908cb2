import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExtractError } from '../../../src/extract/paging/extract-error.js';
import { HttpClient, type HttpClientOptions } from '../../../src/extract/paging/http-client.js';
import { retryDelay, withRetry, type RetryNotice, type RetryOptions } from '../../../src/extract/paging/retry.js';
import { isSameHost, mayCarryCredentials } from '../../../src/extract/paging/same-host.js';
import {
  rawHead,
  sendJson,
  startRawServer,
  startScriptedServer,
  type ScriptedServer,
} from '../../helpers/scripted-server.js';
import { failure } from '../../helpers/extract-failure.js';

const PATH = '/api/images/?limit=2&offset=0';
const GOOD = { count: 2, next: null, previous: null, results: [{ id: 1 }, { id: 2 }] };
const FAST: RetryOptions = { attempts: 2, baseDelayMs: 1, maxDelayMs: 2, retryAfterFloorMs: 5 };
const TOKEN = 'sekrit-0123456789';

const servers: ScriptedServer[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const s = await startScriptedServer(handler);
  servers.push(s);
  return s;
}

async function rawServer(handler: Parameters<typeof startRawServer>[0]): Promise<ScriptedServer> {
  const s = await startRawServer(handler);
  servers.push(s);
  return s;
}

function client(base: string, options: HttpClientOptions = {}): HttpClient {
  const c = new HttpClient(new URL(base), options);
  clients.push(c);
  return c;
}

/**
 * Streams `total` bytes after `head` with backpressure; resolves with the bytes the server managed to write before the
 * client hung up.
 */
function streamBody(socket: Socket, head: string, total: number): Promise<number> {
  return new Promise((resolve) => {
    socket.write(head, 'latin1');
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let queued = 0;
    const pump = (): void => {
      while (queued < total && !socket.destroyed) {
        queued += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end();
    };
    socket.once('close', () => resolve(socket.bytesWritten));
    pump();
  });
}

describe('redirects', () => {
  it('follows relative and absolute redirects on the same host; returns the page, its text and bytes', async () => {
    const s = await server((req, res, origin) => {
      if (req.url === '/api/images?limit=2&offset=0')
        res.writeHead(301, { location: `${origin}/api/images/?limit=2&offset=0` }).end();
      else if (req.url === '/old/') res.writeHead(308, { location: '/api/images?limit=2&offset=0' }).end();
      else sendJson(res, GOOD);
    });
    const fetched = await client(s.origin).getPage(`${s.origin}/old/`);
    // its text: the bytes as Latin-1, which the page's searches read (parse-json-bytes.ts)
    expect(fetched).toEqual({ page: GOOD, bytes: Buffer.from(JSON.stringify(GOOD)), text: JSON.stringify(GOOD) });
    expect(s.requests).toEqual(['/old/', '/api/images?limit=2&offset=0', PATH]);
  });

  it('follows up to maxRedirects and no further', async () => {
    const s = await server((req, res) => {
      const n = Number(req.url?.slice(1));
      if (n < 3) res.writeHead(302, { location: `/${n + 1}` }).end();
      else sendJson(res, GOOD);
    });
    expect((await client(s.origin, { maxRedirects: 3 }).getPage(`${s.origin}/0`)).page).toEqual(GOOD);
    const error = await failure(client(s.origin, { maxRedirects: 2 }).getPage(`${s.origin}/0`));
    expect(error.message).toBe(`extract: GET ${s.origin}/2 redirected more than 2 times`);
    expect([error.code, error.retryable]).toEqual(['REDIRECT_LOOP', false]);
  });

  it('stops a redirect loop the first time a URL comes back', async () => {
    const s = await server((req, res) => res.writeHead(307, { location: req.url === '/a' ? '/b' : '/a' }).end());
    const error = await failure(withRetry(() => client(s.origin).getPage(`${s.origin}/a`), FAST));
    expect(error.message).toBe(`extract: GET ${s.origin}/b redirected in a loop, back to ${s.origin}/a`);
    expect(s.requests).toEqual(['/a', '/b']);
  });

  it('refuses a redirect to another host without contacting it', async () => {
    const other = await server((_req, res) => sendJson(res, GOOD));
    const s = await server((_req, res) => res.writeHead(302, { location: `${other.origin}${PATH}` }).end());
    const error = await failure(withRetry(() => client(s.origin).getPage(s.origin + PATH), FAST));
    expect(error.message).toBe(
      `extract: GET ${s.origin}${PATH} redirected to another host (${new URL(other.origin).host}); refusing to follow`,
    );
    expect([error.code, error.retryable, error.status]).toEqual(['FOREIGN_LINK', false, 302]);
    expect(other.requests).toEqual([]);
  });

  it('refuses to request a URL off the base host at all', async () => {
    const other = await server((_req, res) => sendJson(res, GOOD));
    const s = await server((_req, res) => sendJson(res, GOOD));
    for (const url of [other.origin + PATH, 'ftp://127.0.0.1/', 'not a url']) {
      const error = await failure(client(s.origin).getPage(url));
      expect(error.message).toBe(
        `extract: GET ${url} is not an http(s) URL on the base host (${new URL(s.origin).host}); ` +
          `refusing to request it`,
      );
    }
    expect([other.requests, s.requests]).toEqual([[], []]);
  });
});

describe('isSameHost and mayCarryCredentials', () => {
  it.each([
    ['http://neurovault.org/api/images/', 'https://neurovault.org/', true, false],
    ['https://neurovault.org/api/images/', 'https://neurovault.org/', true, true],
    ['https://NeuroVault.org:443/x', 'https://neurovault.org/', true, true],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000/', true, true],
    ['http://127.0.0.1:8001/', 'http://127.0.0.1:8000/', false, false],
    ['http://localhost:8000/', 'http://127.0.0.1:8000/', false, false],
    ['http://neurovault.org.evil.org/', 'https://neurovault.org/', false, false],
    ['http://neurovault.org@evil.org/', 'https://neurovault.org/', false, false],
    ['ftp://neurovault.org/', 'https://neurovault.org/', false, false],
    ['http://169.254.169.254/', 'https://neurovault.org/', false, false],
  ])('%s against base %s: same host %s, may carry the token %s', (url, base, same, token) => {
    expect(isSameHost(new URL(url), new URL(base))).toBe(same);
    expect(mayCarryCredentials(new URL(url), new URL(base))).toBe(token);
  });
});

describe('token', () => {
  it('goes to the base host on every hop, and nowhere else', async () => {
    const other = await server((_req, res) => sendJson(res, GOOD));
    const s = await server((req, res) => {
      if (req.url === '/hop') res.writeHead(301, { location: PATH }).end();
      else if (req.url === '/away') res.writeHead(301, { location: `${other.origin}${PATH}` }).end();
      else sendJson(res, GOOD);
    });
    const c = client(s.origin, { token: TOKEN });
    await c.getPage(`${s.origin}/hop`);
    await failure(c.getPage(`${s.origin}/away`));
    await failure(c.getPage(other.origin + PATH));
    expect(s.seen.map((r) => [r.url, r.headers['authorization']])).toEqual([
      ['/hop', `Token ${TOKEN}`],
      [PATH, `Token ${TOKEN}`],
      ['/away', `Token ${TOKEN}`],
    ]);
    expect(other.seen).toEqual([]);
  });

  it('is not sent when none is configured', async () => {
    const s = await server((_req, res) => sendJson(res, GOOD));
    await client(s.origin).getPage(s.origin + PATH);
    expect(s.seen[0]?.headers).not.toHaveProperty('authorization');
  });

  it('never reaches an error message', async () => {
    const s = await server((_req, res) => sendJson(res, { detail: 'Invalid token.' }, 401));
    const error = await failure(withRetry(() => client(s.origin, { token: TOKEN }).getPage(s.origin + PATH), FAST));
    expect(error.message).toBe(`extract: GET ${s.origin}${PATH} returned 401 (Invalid token.)`);
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(TOKEN);
  });

  it('must be a single header-safe word', () => {
    for (const bad of [`${TOKEN}\r\nx-injected: 1`, 'two words', '']) {
      expect(() => new HttpClient(new URL('http://127.0.0.1:1'), { token: bad })).toThrow(
        /^extract: the token must be visible ASCII characters without spaces$/,
      );
    }
  });
});

describe('timeouts and cancellation', () => {
  it('a first answer slower than requestTimeoutMs is a timeout; the retry succeeds', async () => {
    let n = 0;
    const s = await server((_req, res) =>
      n++ === 0 ? setTimeout(() => sendJson(res, GOOD), 2_000) : sendJson(res, GOOD),
    );
    const notices: RetryNotice[] = [];
    // 250 ms: the retry's whole request must fit in it on a loaded machine too (50 ms did not, once, under load)
    const fetched = await withRetry(
      () => client(s.origin, { requestTimeoutMs: 250 }).getPage(s.origin + PATH),
      FAST,
      (x) => notices.push(x),
    );
    expect(fetched.page).toEqual(GOOD);
    expect(notices.map((x) => [x.error.code, x.error.message])).toEqual([
      ['TIMEOUT', `extract: GET ${s.origin}${PATH} took longer than 250 ms in all`],
    ]);
  });

  it('the deadline covers every redirect hop', async () => {
    const s = await server((req, res) => {
      const n = Number(req.url?.slice(1));
      setTimeout(() => res.writeHead(302, { location: `/${n + 1}` }).end(), 30);
    });
    const error = await failure(client(s.origin, { requestTimeoutMs: 100, maxRedirects: 50 }).getPage(`${s.origin}/0`));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toMatch(new RegExp(`^extract: GET ${s.origin}/\\d took longer than 100 ms in all$`));
    expect(s.requests.length).toBeLessThan(6);
  });

  it('cancelling during a request is not retried and says so', async () => {
    const aborter = new AbortController();
    // never answers; cancelled once the request has arrived (a timer could fire first on a loaded machine)
    const s = await server(() => aborter.abort());
    const c = client(s.origin);
    const error = await failure(
      withRetry(() => c.getPage(s.origin + PATH, aborter.signal), FAST, undefined, aborter.signal),
    );
    expect([error.code, error.message]).toEqual(['ABORTED', `extract: GET ${s.origin}${PATH} was cancelled`]);
    expect(s.requests).toHaveLength(1);
  });

  it('cancelling during the wait before a retry says cancelled, not the failure being retried', async () => {
    const s = await server((_req, res) => res.writeHead(503, { 'retry-after': '60', 'content-length': 0 }).end());
    const aborter = new AbortController();
    const c = client(s.origin);
    const run = withRetry(
      () => c.getPage(s.origin + PATH, aborter.signal),
      { ...FAST, retryAfterMaxMs: 120_000 },
      () => aborter.abort(),
      aborter.signal,
    );
    const error = await failure(run);
    expect([error.code, error.message]).toEqual(['ABORTED', `extract: GET ${s.origin}${PATH} was cancelled`]);
    expect((error.cause as ExtractError).message).toBe(`extract: GET ${s.origin}${PATH} returned 503`);
  });
});

describe('size cap', () => {
  const CAP = 1_000_000;
  const FIFTY_MB = 50 * 1024 * 1024;

  it('rejects a body announced over the cap by Content-Length before reading it', async () => {
    let written: Promise<number> | undefined;
    const s = await rawServer((socket) => {
      written = streamBody(
        socket,
        rawHead(200, { 'content-type': 'application/json', 'content-length': FIFTY_MB }),
        FIFTY_MB,
      );
    });
    const error = await failure(client(s.origin, { maxBodyBytes: CAP }).getPage(s.origin + PATH));
    expect(error.message).toBe(
      `extract: GET ${s.origin}${PATH} returned a body of ${FIFTY_MB} bytes, over the ${CAP}-byte cap`,
    );
    expect(await written).toBeLessThan(FIFTY_MB / 4);
  });

  it('stops reading a streamed body without Content-Length once it passes the cap', async () => {
    let written: Promise<number> | undefined;
    const s = await rawServer((socket) => {
      written = streamBody(socket, rawHead(200, { 'content-type': 'application/json' }), FIFTY_MB);
    });
    const error = await failure(client(s.origin, { maxBodyBytes: CAP }).getPage(s.origin + PATH));
    expect(error.message).toMatch(
      new RegExp(
        `^extract: GET ${s.origin}/api/images/\\?limit=2&offset=0 returned a body over the ` +
          `${CAP}-byte cap \\(stopped reading at (\\d+) bytes\\)$`,
      ),
    );
    const stoppedAt = Number(/stopped reading at (\d+)/.exec(error.message)?.[1]);
    expect(stoppedAt).toBeGreaterThan(CAP);
    expect(stoppedAt).toBeLessThan(CAP + 256 * 1024);
    expect(await written).toBeLessThan(FIFTY_MB / 4);
  });

  it.each([
    ['with Content-Length', true],
    ['streamed', false],
  ])('accepts a body of exactly the cap and refuses one byte more (%s)', async (_how, withLength) => {
    const body = JSON.stringify(GOOD);
    const s = await rawServer((socket, req) => {
      const padded = body + ' '.repeat(Number(new URL(req.url, 'http://x').searchParams.get('size')) - body.length);
      const length: Record<string, number> = withLength ? { 'content-length': padded.length } : {};
      socket.end(rawHead(200, { 'content-type': 'application/json', ...length }) + padded);
    });
    const c = client(s.origin, { maxBodyBytes: 4096 });
    expect((await c.getPage(`${s.origin}/?size=4096`)).page).toEqual(GOOD);
    expect((await failure(c.getPage(`${s.origin}/?size=4097`))).code).toBe('BAD_BODY');
  });
});

describe('statuses and Retry-After', () => {
  async function attemptsFor(status: number): Promise<{ requests: number; error: ExtractError }> {
    const s = await server((_req, res) => res.writeHead(status, { 'content-length': 0 }).end());
    const error = await failure(withRetry(() => client(s.origin).getPage(s.origin + PATH), FAST));
    return { requests: s.requests.length, error };
  }

  it.each([400, 401, 403, 404, 405, 410, 501])('does not retry %i', async (status) => {
    const { requests, error } = await attemptsFor(status);
    expect([requests, error.retryable, error.status]).toEqual([1, false, status]);
  });

  it.each([408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 525, 526, 527])('retries %i', async (status) => {
    const { requests, error } = await attemptsFor(status);
    expect(requests).toBe(2);
    expect(error.message).toMatch(new RegExp(`returned ${status} after 2 attempts$`));
  });

  /** An nginx page with `status`, as a proxy or a firewall answers in the service's place. */
  const proxyPage = (status: number) => `<html><head><title>${status}</title></head><body>nginx</body></html>`;

  async function answerFor(
    status: number,
    type: string,
    body: string,
  ): Promise<{ requests: number; error: ExtractError }> {
    const s = await server((_req, res) =>
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body),
    );
    const error = await failure(
      withRetry(() => client(s.origin).getPage(s.origin + PATH, undefined, [403, 404]), FAST),
    );
    return { requests: s.requests.length, error };
  }

  it.each([403, 404])("reads a %i in DRF's JSON as the list's answer: not retried, marked drf", async (status) => {
    const { requests, error } = await answerFor(status, 'application/json', '{"detail":"Not found."}');
    expect([requests, error.retryable, error.drf, error.status]).toEqual([1, false, true, status]);
    expect(error.message).toMatch(new RegExp(`returned ${status} \\(Not found\\.\\)$`));
  });

  it.each([403, 404])("retries a %i in a proxy's HTML page, which is no answer of the list", async (status) => {
    const { requests, error } = await answerFor(status, 'text/html', proxyPage(status));
    expect([requests, error.retryable, error.drf, error.status]).toEqual([2, true, false, status]);
    expect(error.message).toMatch(new RegExp(`returned ${status} after 2 attempts$`));
  });

  it("retries a 404 in JSON without a detail, which is not DRF's answer", async () => {
    const { requests, error } = await answerFor(404, 'application/json', '{"error":"no route"}');
    expect([requests, error.retryable, error.drf]).toEqual([2, true, false]);
  });

  async function retryAfterOf(header: string): Promise<ExtractError> {
    const s = await server((_req, res) => res.writeHead(503, { 'retry-after': header, 'content-length': 0 }).end());
    return failure(client(s.origin).getPage(s.origin + PATH));
  }

  it('reads Retry-After in seconds', async () => {
    const error = await retryAfterOf('7');
    expect(error.retryAfterMs).toBe(7_000);
    expect(retryDelay(1, error, { retryAfterFloorMs: 1_000 })).toBe(7_000);
  });

  it('reads Retry-After as an HTTP date', async () => {
    const date = new Date(Math.ceil(Date.now() / 1000) * 1000 + 30_000).toUTCString();
    const error = await retryAfterOf(date);
    expect(error.retryAfterMs).toBeGreaterThan(28_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(31_000);
  });

  it('waits at least the floor after Retry-After: 0 or a date in the past', async () => {
    for (const header of ['0', 'Sun, 06 Nov 1994 08:49:37 GMT']) {
      let n = 0;
      const s = await server((_req, res) =>
        n++ < 2 ? res.writeHead(429, { 'retry-after': header, 'content-length': 0 }).end() : sendJson(res, GOOD),
      );
      const notices: RetryNotice[] = [];
      const started = performance.now();
      await withRetry(
        () => client(s.origin).getPage(s.origin + PATH),
        { attempts: 3, retryAfterFloorMs: 40 },
        (x) => notices.push(x),
      );
      expect(notices.map((x) => x.delayMs)).toEqual([40, 40]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(79);
    }
  });

  it('gives up at once, saying why, when Retry-After asks for longer than allowed', async () => {
    const s = await server((_req, res) => res.writeHead(503, { 'retry-after': '600', 'content-length': 0 }).end());
    const error = await failure(
      withRetry(() => client(s.origin).getPage(s.origin + PATH), { retryAfterMaxMs: 120_000 }),
    );
    expect(error.message).toBe(
      `extract: GET ${s.origin}${PATH} returned 503; retry-after 600 s is longer than the 120 s allowed`,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('gives up, saying why, when the next wait would pass the time budget', async () => {
    const s = await server((_req, res) => res.writeHead(503, { 'retry-after': '2', 'content-length': 0 }).end());
    const error = await failure(withRetry(() => client(s.origin).getPage(s.origin + PATH), { budgetMs: 1_000 }));
    expect(error.message).toBe(`extract: GET ${s.origin}${PATH} returned 503; the 1000 ms retry budget is spent`);
  });

  it('ignores a Retry-After that is neither seconds nor an HTTP date', async () => {
    for (const header of ['-5', '1.5', 'soon', '0x10', '2026-11-21T12:00:00Z'])
      expect((await retryAfterOf(header)).retryAfterMs).toBeUndefined();
  });
});
