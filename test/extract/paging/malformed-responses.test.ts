/**
 * Malformed responses to one page request, each served by a real loopback server and fetched by the real HttpClient
 * under withRetry. Every row states its outcome: a one-line error naming the URL and the reason (and how many requests
 * it cost), a retry that then succeeds, or an accepted page (with the records the record check rejects later). Lists
 * that misstate themselves across pages are paginate's (malformed-lists.test.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtractError, type ExtractErrorCode } from '../../../src/extract/paging/extract-error.js';
import { HttpClient, type HttpClientOptions } from '../../../src/extract/paging/http-client.js';
import { withRetry, type RetryNotice, type RetryOptions } from '../../../src/extract/paging/retry.js';
import type { Page } from '../../../src/schema/image-schema.js';
import { isValidRecord } from '../../../src/transform/check-record.js';
import {
  rawHead,
  sendJson,
  sendRaw,
  startRawServer,
  startScriptedServer,
  type ScriptedServer,
} from '../../helpers/scripted-server.js';

const PATH = '/api/images/?limit=2&offset=0';
const GOOD = { count: 2, next: null, previous: null, results: [{ id: 1 }, { id: 2 }] };
const RETRY: RetryOptions = {
  attempts: 3,
  baseDelayMs: 1,
  maxDelayMs: 4,
  retryAfterFloorMs: 5,
  retryAfterMaxMs: 1_000,
};
const HTTP: HttpClientOptions = { maxBodyBytes: 1_000_000, headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000 };
const DJANGO_500 =
  '<!doctype html>\n<html lang="en">\n<head>\n  <title>Server Error ' +
  '(500)</title>\n</head>\n<body>\n  <h1>Server Error ' +
  '(500)</h1><p></p>\n</body>\n</html>\n';
const CLOUDFLARE_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 ' +
  'Bad ' +
  'Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n';

/** A scripted answer: through node:http, or raw bytes on the socket. */
type Respond =
  | { http: (res: ServerResponse, req: IncomingMessage, origin: string) => void }
  | { raw: (socket: Socket, origin: string) => void };

/** What must happen. `attempts` is the number of requests the server saw, redirect hops included. */
type Outcome =
  | { error: RegExp; code: ExtractErrorCode; attempts: number }
  | { retried: number; thenOk: true }
  | { page: { count: number; ids: unknown[] }; rejected: number[]; check?: (page: Page) => void };

interface Row {
  /** The case, as the issue names it. */
  name: string;
  /** The hostile response. */
  respond: Respond;
  /** Serve it this many times, then a good page; default every time. */
  times?: number;
  /** Client settings for this row, over HTTP. */
  http?: HttpClientOptions;
  /**
   * Retry settings for this row, over RETRY (undici's header and body timers tick about once a second, so timeout rows
   * try twice, not three times).
   */
  retry?: RetryOptions;
  expect: Outcome;
}

const text = (
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string | number> = {},
): Respond => ({
  raw: (socket) => sendRaw(socket, status, { ...(type === '' ? {} : { 'content-type': type }), ...extra }, body),
});
const jsonText = (body: string | Buffer, extra: Record<string, string | number> = {}): Respond =>
  text(200, 'application/json', body, extra);
const envelope = (patch: Record<string, unknown>): Respond => jsonText(JSON.stringify({ ...GOOD, ...patch }));
const status = (code: number, headers: Record<string, string> = {}, body = ''): Respond => ({
  http: (res) => {
    res.writeHead(code, { 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  },
});
const redirect = (location: (origin: string, req: IncomingMessage) => string | undefined, code = 301): Respond => ({
  http: (res, req, origin) => {
    const target = location(origin, req);
    res.writeHead(code, { 'content-length': 0, ...(target === undefined ? {} : { location: target }) });
    res.end();
  },
});
/** Writes `total` bytes of JSON whitespace after `head`, minding backpressure, until done or the client hangs up. */
const stream = (head: string, total: number): Respond => ({
  raw: (socket) => {
    socket.write(head, 'latin1');
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    const pump = (): void => {
      while (written < total && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end();
    };
    pump();
  },
});
const FIFTY_MB = 50 * 1024 * 1024;
const after3 = ' after 3 attempts$';
const retried = (n: number): Outcome => ({ retried: n, thenOk: true });

const ROWS: Row[] = [
  // Status codes and error pages
  {
    name: 'Django HTML 500 page, twice, then the page',
    respond: status(500, { 'content-type': 'text/html' }, DJANGO_500),
    times: 2,
    expect: retried(2),
  },
  {
    name: 'Django HTML 500 page every time',
    respond: status(500, { 'content-type': 'text/html' }, DJANGO_500),
    expect: { error: new RegExp(`returned 500${after3}`), code: 'HTTP_STATUS', attempts: 3 },
  },
  {
    name: 'Cloudflare 502 HTML page once',
    respond: status(502, { 'content-type': 'text/html' }, CLOUDFLARE_502),
    times: 1,
    expect: retried(1),
  },
  { name: 'Cloudflare 520 (52x) once', respond: status(520), times: 1, expect: retried(1) },
  {
    name: '503 with Retry-After: 0, twice (floored, not burnt at once)',
    respond: status(503, { 'retry-after': '0' }),
    times: 2,
    expect: retried(2),
  },
  {
    name: '429 asking to wait an hour',
    respond: status(429, { 'retry-after': '3600' }),
    expect: {
      error: /returned 429; retry-after 3600 s is longer than the 1 s allowed$/,
      code: 'HTTP_STATUS',
      attempts: 1,
    },
  },
  {
    name: "404 with DRF's JSON detail",
    respond: status(404, { 'content-type': 'application/json' }, '{"detail":"Not found."}'),
    expect: { error: /returned 404 \(Not found\.\)$/, code: 'HTTP_STATUS', attempts: 1 },
  },
  {
    name: '401 with a JSON detail naming the problem',
    respond: status(401, { 'content-type': 'application/json' }, '{"detail":"Invalid token."}'),
    expect: { error: /returned 401 \(Invalid token\.\)$/, code: 'HTTP_STATUS', attempts: 1 },
  },
  {
    name: 'a 500 with a 1 MB HTML body, once',
    respond: status(500, { 'content-type': 'text/html' }, 'x'.repeat(1_000_000)),
    times: 1,
    expect: retried(1),
  },
  {
    name: '204 No Content',
    respond: { http: (res) => res.writeHead(204).end() },
    expect: { error: /returned 204$/, code: 'HTTP_STATUS', attempts: 1 },
  },

  // A 200 that is not a JSON page
  {
    name: 'HTML error page with status 200',
    respond: text(200, 'text/html; charset=utf-8', DJANGO_500),
    expect: {
      error: new RegExp(`returned content type "text/html; charset=utf-8", not JSON${after3}`),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: "Cloudflare HTML page labelled application/json (V8's parse error quotes its line break)",
    respond: jsonText(CLOUDFLARE_502),
    expect: {
      error: new RegExp(
        `returned a body that is not valid JSON \\(Unexpected token '<', "<html> ` +
          `<h"\\.\\.\\. is not valid JSON\\)${after3}`,
      ),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: 'no content type at all',
    respond: text(200, '', JSON.stringify(GOOD)),
    expect: { error: new RegExp(`returned content type "", not JSON${after3}`), code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'a look-alike content type (application/json-seq)',
    respond: text(200, 'application/json-seq', JSON.stringify(GOOD)),
    expect: { error: /returned content type "application\/json-seq", not JSON/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'gzip body that was not asked for',
    respond: jsonText(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]), { 'content-encoding': 'gzip' }),
    expect: {
      error: /returned a body with content-encoding "gzip", which was not asked for/,
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: 'empty 200 body',
    respond: jsonText(''),
    expect: {
      error: new RegExp(`not valid JSON \\(Unexpected end of JSON input\\)${after3}`),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: 'JSON cut short with a matching Content-Length',
    respond: jsonText('{"count":2,"next":null,"previous":null,"results":[{"id":1},'),
    times: 1,
    expect: retried(1),
  },
  {
    name: 'a JSON array instead of an object',
    respond: jsonText('[]'),
    expect: {
      error: /without a valid envelope \(body: Invalid input: expected object, received array\)/,
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: 'JSON null',
    respond: jsonText('null'),
    expect: { error: /without a valid envelope \(body: /, code: 'BAD_BODY', attempts: 3 },
  },

  // The envelope
  {
    name: '`results` not an array',
    respond: envelope({ results: { id: 1 } }),
    expect: {
      error: /without a valid envelope \(results: Invalid input: expected array, received object\)/,
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: '`results` missing',
    respond: jsonText('{"count":2,"next":null,"previous":null}'),
    expect: { error: /\(results: Invalid input: expected array, received undefined\)/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: '`count` missing',
    respond: jsonText('{"next":null,"previous":null,"results":[]}'),
    expect: { error: /\(count: Invalid input: expected number, received undefined\)/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'negative `count`',
    respond: envelope({ count: -1 }),
    expect: { error: /\(count: Too small: expected number to be >=0\)/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'string `count`',
    respond: envelope({ count: '2' }),
    expect: { error: /\(count: Invalid input: expected number, received string\)/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'fractional `count`',
    respond: envelope({ count: 2.5 }),
    expect: { error: /\(count: Invalid input: expected int, received number\)/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: '`count` past 2^53',
    respond: jsonText('{"count":9007199254740993,"next":null,"previous":null,"results":[]}'),
    expect: {
      error: /\(count: Too big: expected (?:number|int) to be <=9007199254740991\)/,
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: '`count` past the double range (1e400)',
    respond: jsonText('{"count":1e400,"next":null,"previous":null,"results":[]}'),
    expect: { error: /\(count: /, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: '`next` a number',
    respond: envelope({ next: 4 }),
    expect: { error: /\(next: Invalid input: expected string, received number\)/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'duplicate keys: a good `count` overridden by a bad one (last wins)',
    respond: jsonText('{"count":2,"count":-5,"next":null,"previous":null,"results":[]}'),
    expect: { error: /\(count: Too small/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'duplicate keys: last wins, in the envelope and in a record',
    respond: jsonText('{"count":-5,"count":2,"next":null,"previous":null,"results":[{"id":1,"id":7},{"id":2}]}'),
    expect: { page: { count: 2, ids: [7, 2] }, rejected: [] },
  },

  // Records: the page is accepted, the record check rejects the bad ones later
  {
    name: 'numbers past 2^53 in records',
    respond: jsonText(
      '{"count":3,"next":null,"previous":null,"results":' +
        '[{"id":9007199254740993},{"id":3,"file_size":1e400},{"id":4,"collection_id":12345678901234567890}]}',
    ),
    expect: { page: { count: 3, ids: [9007199254740992, 3, 4] }, rejected: [0, 1, 2] },
  },
  {
    name: 'timestamps without an offset',
    respond: envelope({
      results: [
        { id: 1, add_date: '2016-01-21T18:21:57.860138' },
        { id: 2, add_date: '2016-01-21T18:21:57.860138+01:00', modify_date: '2016-01-21 18:21' },
      ],
    }),
    expect: { page: { count: 2, ids: [1, 2] }, rejected: [0, 1] },
  },
  {
    name: 'unknown image_type (an open category: kept as data)',
    respond: envelope({
      results: [
        { id: 1, image_type: 'surface map' },
        { id: 2, image_type: 42 },
      ],
    }),
    expect: { page: { count: 2, ids: [1, 2] }, rejected: [1] },
  },
  {
    name: 'records that are not objects, or lack a usable id',
    respond: envelope({ results: [null, 'x', [1], { id: -1 }, { id: '5' }, { name: 'no id' }, { id: 6 }] }),
    expect: {
      page: { count: 2, ids: [undefined, undefined, undefined, -1, '5', undefined, 6] },
      rejected: [0, 1, 2, 3, 4, 5],
    },
  },
  {
    name: '__proto__ keys pollute nothing',
    respond: jsonText(
      '{"count":1,"next":null,"previous":null,"results":' +
        '[{"id":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}]}',
    ),
    expect: {
      page: { count: 1, ids: [1] },
      rejected: [],
      check: (page) => {
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        expect(Object.prototype.hasOwnProperty.call(page.results[0], '__proto__')).toBe(true);
      },
    },
  },
  {
    name: 'a UTF-8 byte order mark before the JSON',
    respond: jsonText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(GOOD))])),
    expect: { page: { count: 2, ids: [1, 2] }, rejected: [] },
  },
  {
    // The page parses; the record is rejected (writing its `extra` JSON would overflow the stack), the run goes on.
    name: 'JSON nested 100,000 levels deep inside a record',
    respond: jsonText(
      '{"count":1,"next":null,"previous":null,"results":' +
        `[{"id":1,"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`,
    ),
    expect: { page: { count: 1, ids: [1] }, rejected: [0] },
  },

  // Bytes that are not UTF-8
  {
    name: 'invalid UTF-8 (0xFF) inside a string',
    respond: jsonText(
      Buffer.concat([
        Buffer.from('{"count":1,"next":null,"previous":null,"results":[{"id":1,"name":"'),
        Buffer.from([0xff]),
        Buffer.from('"}]}'),
      ]),
    ),
    expect: { error: new RegExp(`returned a body that is not valid UTF-8${after3}`), code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'overlong UTF-8 encoding of "/" (C0 AF)',
    respond: jsonText(
      Buffer.concat([
        Buffer.from('{"count":1,"next":null,"previous":null,"results":[{"id":1,"name":"'),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from('"}]}'),
      ]),
    ),
    expect: { error: /not valid UTF-8/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'a UTF-16 surrogate encoded as UTF-8 (ED A0 80)',
    respond: jsonText(
      Buffer.concat([
        Buffer.from('{"count":1,"next":null,"previous":null,"results":[{"id":1,"name":"'),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('"}]}'),
      ]),
    ),
    expect: { error: /not valid UTF-8/, code: 'BAD_BODY', attempts: 3 },
  },
  {
    name: 'a UTF-8 body cut inside a character, then the page',
    respond: jsonText(
      Buffer.from('{"count":1,"next":null,"previous":null,"results":[{"id":1,"name":"\u00e9').subarray(0, -1),
    ),
    times: 1,
    expect: retried(1),
  },

  // Sizes
  {
    name: '50 MB body announced by Content-Length',
    respond: stream(rawHead(200, { 'content-type': 'application/json', 'content-length': FIFTY_MB }), FIFTY_MB),
    expect: {
      error: new RegExp(`returned a body of ${FIFTY_MB} bytes, over the 1000000-byte cap${after3}`),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name:
      'body over the cap by Content-Length, already sent in full (its early close once ' +
      'threw an uncaught AbortError)',
    respond: jsonText(' '.repeat(5_000)),
    http: { maxBodyBytes: 4_096 },
    expect: {
      error: new RegExp(`returned a body of 5000 bytes, over the 4096-byte cap${after3}`),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: '50 MB body streamed without Content-Length',
    respond: stream(rawHead(200, { 'content-type': 'application/json' }), FIFTY_MB),
    expect: {
      error: new RegExp(`returned a body over the 1000000-byte cap \\(stopped reading at \\d+ bytes\\)${after3}`),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: 'a 64 KiB response header',
    respond: {
      raw: (socket) =>
        socket.end(
          rawHead(200, {
            'x-padding': 'a'.repeat(64 * 1024),
            'content-type': 'application/json',
            'content-length': 2,
          }) + '{}',
        ),
    },
    expect: { error: /failed \(UND_ERR_HEADERS_OVERFLOW: Headers Overflow Error\)/, code: 'NETWORK', attempts: 3 },
  },

  // Broken connections and framing
  {
    name: 'body shorter than its Content-Length, then the connection closes',
    respond: {
      raw: (socket) =>
        socket.end(`${rawHead(200, { 'content-type': 'application/json', 'content-length': 1000 })}{"count":2`),
    },
    expect: {
      error: new RegExp(`returned a truncated body \\(10 of 1000 bytes, then the connection closed\\)${after3}`),
      code: 'BAD_BODY',
      attempts: 3,
    },
  },
  {
    name: 'body shorter than its Content-Length, once',
    respond: {
      raw: (socket) =>
        socket.end(`${rawHead(200, { 'content-type': 'application/json', 'content-length': 1000 })}{"count":2`),
    },
    times: 1,
    expect: retried(1),
  },
  {
    name: 'connection reset before any response',
    respond: { raw: (socket) => socket.resetAndDestroy() },
    expect: {
      error: /failed \((?:read ECONNRESET|write EPIPE|UND_ERR_SOCKET: other side closed)\) after 3 attempts$/,
      code: 'NETWORK',
      attempts: 3,
    },
  },
  {
    name: 'connection reset in the middle of a chunked body, once',
    respond: {
      raw: (socket) => {
        socket.write(
          `${rawHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })}a\r\n{"count":2\r\n`,
        );
        setTimeout(() => socket.resetAndDestroy(), 20);
      },
    },
    times: 1,
    expect: retried(1),
  },
  {
    name: 'invalid chunked encoding',
    respond: {
      raw: (socket) =>
        socket.end(
          rawHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }) +
            'zz\r\n{}\r\n0\r\n\r\n',
        ),
    },
    expect: {
      error: /failed \(Response does not match the HTTP\/1\.1 protocol \(Invalid character in chunk size\)\)/,
      code: 'NETWORK',
      attempts: 3,
    },
  },
  {
    name: 'two different Content-Length headers',
    respond: {
      raw: (socket) =>
        socket.end(`${rawHead(200, { 'content-type': 'application/json', 'content-length': [2, 9] })}{}`),
    },
    expect: { error: /failed \(UND_ERR_RES_CONTENT_LENGTH_MISMATCH: /, code: 'NETWORK', attempts: 3 },
  },
  {
    name: 'not HTTP at all',
    respond: { raw: (socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n') },
    expect: {
      error: /failed \(Response does not match the HTTP\/1\.1 protocol \(Expected HTTP\//,
      code: 'NETWORK',
      attempts: 3,
    },
  },

  // Time
  {
    name: 'headers never come',
    respond: { raw: () => undefined },
    http: { headersTimeoutMs: 100 },
    retry: { attempts: 2 },
    expect: {
      error: /timed out waiting for the response headers \(100 ms\) after 2 attempts$/,
      code: 'TIMEOUT',
      attempts: 2,
    },
  },
  {
    name: 'body stalls after ten bytes',
    respond: {
      raw: (socket) =>
        socket.write(`${rawHead(200, { 'content-type': 'application/json', 'content-length': 100 })}{"count":2`),
    },
    http: { bodyTimeoutMs: 100 },
    retry: { attempts: 2 },
    expect: { error: /timed out: the body stalled for 100 ms after 2 attempts$/, code: 'TIMEOUT', attempts: 2 },
  },
  {
    name: 'body trickled a byte every 20 ms, past the per-request limit',
    respond: {
      raw: (socket) => {
        socket.write(rawHead(200, { 'content-type': 'application/json', 'content-length': 10_000 }));
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(' ')), 20);
      },
    },
    http: { requestTimeoutMs: 150 },
    expect: { error: /took longer than 150 ms in all after 3 attempts$/, code: 'TIMEOUT', attempts: 3 },
  },

  // Redirects
  {
    name: 'redirect to another host',
    respond: redirect(() => 'https://evil.example/api/images/?limit=2&offset=0'),
    expect: {
      error: /redirected to another host \(evil\.example\); refusing to follow$/,
      code: 'FOREIGN_LINK',
      attempts: 1,
    },
  },
  {
    name: 'redirect to a private address (cloud metadata)',
    respond: redirect(() => 'http://169.254.169.254/latest/meta-data/'),
    expect: {
      error: /redirected to another host \(169\.254\.169\.254\); refusing to follow$/,
      code: 'FOREIGN_LINK',
      attempts: 1,
    },
  },
  {
    name: 'redirect to the same machine under another name',
    respond: redirect((origin) => origin.replace('127.0.0.1', 'localhost') + PATH),
    expect: { error: /redirected to another host \(localhost:\d+\)/, code: 'FOREIGN_LINK', attempts: 1 },
  },
  {
    name: 'redirect to a file: URL',
    respond: redirect(() => 'file:///etc/passwd'),
    expect: {
      error: /redirected to a file: URL; only http and https are followed$/,
      code: 'BAD_REDIRECT',
      attempts: 1,
    },
  },
  {
    name: 'redirect to itself',
    respond: redirect((origin, req) => origin + req.url),
    expect: {
      error: /redirected in a loop, back to http:\/\/127\.0\.0\.1:\d+\/api\/images\/\?limit=2&offset=0$/,
      code: 'REDIRECT_LOOP',
      attempts: 1,
    },
  },
  {
    name: 'redirect without a Location',
    respond: redirect(() => undefined, 302),
    expect: {
      error: new RegExp(`returned a 302 redirect without a location${after3}`),
      code: 'BAD_REDIRECT',
      attempts: 3,
    },
  },
  {
    name: 'a same-host redirect with a 1 MB body, then the page',
    respond: {
      http: (res, _req, origin) => {
        res.writeHead(302, {
          location: `${origin}${PATH}&hop=1`,
          'content-type': 'text/html',
          'content-length': 1_000_000,
        });
        res.end('x'.repeat(1_000_000));
      },
    },
    times: 1,
    expect: retried(0),
  },
  {
    name: 'redirect to an unreadable Location carrying credentials (masked in the message)',
    respond: redirect(() => 'http://user:pw@[::1?token=abc'),
    expect: {
      error: /returned a 301 redirect to an unreadable location "http:\/\/\*\*\*@\[::1\?token=\*\*\*"/,
      code: 'BAD_REDIRECT',
      attempts: 3,
    },
  },
  {
    name: 'redirect to an unreadable Location',
    respond: redirect(() => 'http://[::1'),
    expect: {
      error: /returned a 301 redirect to an unreadable location "http:\/\/\[::1"/,
      code: 'BAD_REDIRECT',
      attempts: 3,
    },
  },
];

let open: ScriptedServer | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function serve(row: Row): Promise<ScriptedServer> {
  let served = 0;
  const hostile = () => row.times === undefined || served++ < row.times;
  const respond = row.respond;
  open =
    'raw' in respond
      ? await startRawServer((socket, _req, origin) =>
          hostile()
            ? respond.raw(socket, origin)
            : sendRaw(socket, 200, { 'content-type': 'application/json' }, JSON.stringify(GOOD)),
        )
      : await startScriptedServer((req, res, origin) =>
          hostile() ? respond.http(res, req, origin) : sendJson(res, GOOD),
        );
  return open;
}

describe('malformed responses to one page request', () => {
  it('has at least 30 cases', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
  });

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const server = await serve(row);
    const url = server.origin + PATH;
    const client = new HttpClient(new URL(server.origin), { ...HTTP, ...row.http });
    const notices: RetryNotice[] = [];
    let outcome: { page: Page } | { error: unknown };
    try {
      outcome = {
        page: (
          await withRetry(
            () => client.getPage(url),
            { ...RETRY, ...row.retry },
            (n) => notices.push(n),
          )
        ).page,
      };
    } catch (error) {
      outcome = { error };
    } finally {
      await client.close();
    }
    const want = row.expect;
    if ('error' in want) {
      expect(outcome).toHaveProperty('error');
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(ExtractError);
      const { message, code } = error as ExtractError;
      expect(message.startsWith(`extract: GET ${url} `), message).toBe(true);
      expect(message).not.toMatch(/[\r\n\u2028\u2029]|\n\s+at /);
      expect(message).toMatch(want.error);
      expect(code).toBe(want.code);
      expect(server.requests).toHaveLength(want.attempts);
      for (const notice of notices) expect(notice.error.reason).not.toMatch(/[\r\n]/);
    } else if ('retried' in want) {
      expect(outcome).toEqual({ page: GOOD });
      expect(notices.map((n) => n.attempt)).toEqual(Array.from({ length: want.retried }, (_, i) => i + 1));
      if (row.name.startsWith('503 with Retry-After: 0'))
        for (const n of notices) expect(n.delayMs).toBe(RETRY.retryAfterFloorMs);
    } else {
      expect(outcome).toHaveProperty('page');
      const { page } = outcome as { page: Page };
      expect(page.count).toBe(want.page.count);
      expect(
        page.results.map((r) =>
          typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as { id?: unknown }).id : undefined,
        ),
      ).toEqual(want.page.ids);
      expect(page.results.flatMap((r, i) => (isValidRecord(r) ? [] : [i]))).toEqual(want.rejected);
      want.check?.(page);
      expect(notices).toEqual([]);
    }
  });
});
