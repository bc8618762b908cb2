/** Small real-HTTP helpers for the service tests (undici over loopback, raw sockets for broken responses). */
import { connect } from 'node:net';
import { Agent, request } from 'undici';

/**
 * A connection per request: a socket kept alive could be reused just as the service closes it for being idle (its
 * keep-alive timeout running out while a loaded machine stalls this process), which fails a request with ECONNRESET.
 */
const oneConnectionEach = new Agent({ pipelining: 0 });

/** A fully read response. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

/** Sends a request and reads the whole body. */
export async function fetchReply(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const method = (options.method ?? 'GET') as 'GET';
  const response = await request(url, { method, headers: options.headers, dispatcher: oneConnectionEach });
  const body = Buffer.from(await response.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return { status: response.statusCode, headers, body, text: body.toString('utf8') };
}

/** GETs a list page and parses it. */
export async function getPage(url: string, headers?: Record<string, string>): Promise<Page> {
  const reply = await fetchReply(url, { headers });
  if (reply.status !== 200) throw new Error(`GET ${url} returned ${reply.status}: ${reply.text.slice(0, 200)}`);
  return JSON.parse(reply.text) as Page;
}

/** A list page. */
export interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: Record<string, unknown>[];
}

/** What came back on a raw socket: the bytes until the server closed it. */
export interface RawExchange {
  bytes: Buffer;
  /** Parsed Content-Length, if a header block arrived. */
  contentLength?: number;
  /** Body bytes received after the header block. */
  bodyBytes: number;
  /** The socket saw an error (e.g. ECONNRESET) rather than a clean end. */
  error?: string;
}

/** Sends one GET over a fresh TCP connection and collects everything until the connection ends. */
export function rawGet(origin: string, path: string): Promise<RawExchange> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => {
      const bytes = Buffer.concat(chunks);
      const headerEnd = bytes.indexOf('\r\n\r\n');
      const head = headerEnd === -1 ? '' : bytes.subarray(0, headerEnd).toString('latin1');
      const match = /\r\ncontent-length: *(\d+)/i.exec(head);
      resolve({
        bytes,
        contentLength: match ? Number(match[1]) : undefined,
        bodyBytes: headerEnd === -1 ? 0 : bytes.length - headerEnd - 4,
        error,
      });
    });
  });
}

/** Follows `next` links from `url` and returns every page. */
export async function allPages(url: string): Promise<Page[]> {
  const pages: Page[] = [];
  let next: string | null = url;
  while (next !== null) {
    const page: Page = await getPage(next);
    pages.push(page);
    next = page.next;
  }
  return pages;
}
