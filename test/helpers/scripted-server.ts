import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

/** A real loopback HTTP server whose answers a test scripts, for responses the bundled service would never give. */
export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Requests seen, in order (path and query). */
  requests: string[];
  /** Requests seen, in order, with their headers (to check which carried `authorization`). */
  seen: SeenRequest[];
  /** Stops the server and drops kept-alive connections. */
  close(): Promise<void>;
}

/** One request as a scripted server saw it. */
export interface SeenRequest {
  /** Path and query. */
  url: string;
  /** Header names in lower case. */
  headers: IncomingHttpHeaders;
}

/** Starts a server on 127.0.0.1, port 0, answering each request with `handler`. */
export async function startScriptedServer(
  handler: (req: IncomingMessage, res: ServerResponse, origin: string) => void,
): Promise<ScriptedServer> {
  const requests: string[] = [];
  const seen: SeenRequest[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    seen.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res, origin);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON body with status 200 (or the given one). */
export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Starts a TCP server on 127.0.0.1, port 0, that parses request heads itself and lets `handler` write raw bytes to the
 * socket:
 * for responses node:http refuses to produce (truncated bodies, broken chunking, invalid bytes, resets, no HTTP at
 * all).
 */
export async function startRawServer(
  handler: (socket: Socket, req: SeenRequest, origin: string) => void,
): Promise<ScriptedServer> {
  const requests: string[] = [];
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let origin = '';
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // the client resetting a connection is part of the script
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const req = parseHead(pending.subarray(0, end).toString('latin1'));
        pending = pending.subarray(end + 4);
        requests.push(req.url);
        seen.push(req);
        handler(socket, req, origin);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The head of a raw HTTP/1.1 response, `connection: close` unless the headers say otherwise; the body is the caller's
 * to write.
 */
export function rawHead(
  status: number,
  headers: Record<string, string | number | (string | number)[]> = {},
  reason = 'Scripted',
): string {
  const lines = [`HTTP/1.1 ${status} ${reason}`];
  const all = { connection: 'close', ...headers };
  for (const [name, value] of Object.entries(all))
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Writes a whole raw response with a correct Content-Length and closes the connection. */
export function sendRaw(
  socket: Socket,
  status: number,
  headers: Record<string, string | number>,
  body: Buffer | string = '',
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  socket.end(
    Buffer.concat([Buffer.from(rawHead(status, { ...headers, 'content-length': bytes.length }), 'latin1'), bytes]),
  );
}

function parseHead(head: string): SeenRequest {
  const [requestLine = '', ...lines] = head.split('\r\n');
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { url: requestLine.split(' ')[1] ?? '', headers };
}
