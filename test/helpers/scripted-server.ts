import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real loopback HTTP server whose answers a test scripts, for responses the bundled service would never give. */
export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Requests seen, in order (path and query). */
  requests: string[];
  /** Stops the server and drops kept-alive connections. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1, port 0, answering each request with `handler`. */
export async function startScriptedServer(handler: (req: IncomingMessage, res: ServerResponse, origin: string) => void): Promise<ScriptedServer> {
  const requests: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res, origin);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
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
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
