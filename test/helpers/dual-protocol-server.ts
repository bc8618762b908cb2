import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

/**
 * The loopback certificate (IP 127.0.0.1, self-signed, valid to 2126) the dual-protocol server presents; a client
 * trusts it through `NODE_EXTRA_CA_CERTS`.
 */
export const LOOPBACK_CERT = fileURLToPath(new URL('../fixtures/tls/loopback-cert.pem', import.meta.url));
const LOOPBACK_KEY = fileURLToPath(new URL('../fixtures/tls/loopback-key.pem', import.meta.url));

/** One request as the dual-protocol server saw it. */
export interface SchemeRequest {
  /** `http` or `https`: how the request reached the port. */
  scheme: 'http' | 'https';
  /** Path and query. */
  url: string;
  /** The Authorization header, if any. */
  authorization: string | undefined;
}

/** A loopback server answering plain HTTP and HTTPS on one port, so that an `http` ↔ `https` hop stays on its host. */
export interface DualProtocolServer {
  /** The port, for `http://127.0.0.1:PORT` and `https://127.0.0.1:PORT`. */
  port: number;
  /** Requests seen, in order. */
  seen: SchemeRequest[];
  /** Stops the server and drops its connections. */
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1, port 0: a connection whose first byte opens a TLS handshake (0x16) is served over
 * TLS with the loopback certificate, any other as plain HTTP; both by `handler`.
 */
export async function startDualProtocolServer(
  handler: (req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https', port: number) => void,
): Promise<DualProtocolServer> {
  const seen: SchemeRequest[] = [];
  let port = 0;
  const http = createHttpServer((req, res) => {
    const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
    seen.push({ scheme, url: req.url ?? '', authorization: req.headers.authorization });
    handler(req, res, scheme, port);
  });
  const tls = createTlsServer(
    { key: readFileSync(LOOPBACK_KEY), cert: readFileSync(LOOPBACK_CERT) },
    (secure) => void http.emit('connection', secure),
  );
  tls.on('tlsClientError', () => undefined);
  const sockets = new Set<Socket>();
  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket)).on('error', () => undefined);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      (first[0] === 0x16 ? tls : http).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  port = (tcp.address() as AddressInfo).port;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        tcp.close(() => resolve());
      }),
  };
}
