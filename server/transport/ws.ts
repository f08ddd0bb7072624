/**
 * The HTTP port on node:http(s) with the `ws` package for WebSocket upgrades at /ws. Each
 * binary message carries one or more whole frames; a text message is a protocol error.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { BaseConnection, TransportErrorCode, type ConnectionListener } from './connection.js';
import { handleHttp } from './http.js';
import { normalizeAddress } from './address.js';
import { listen } from './tcp.js';
import type { HttpServerHandle, HttpServerOptions } from './web.js';

const CLOSE_GRACE_MS = 2000;

class WsConnection extends BaseConnection {
  constructor(
    private readonly ws: WebSocket,
    remoteAddress: string,
    options: HttpServerOptions['connection'],
    private readonly maxMessageSize: number,
  ) {
    super('ws', remoteAddress, options);
  }

  protected socketBuffered(): number {
    return this.ws.bufferedAmount;
  }

  protected write(bytes: Uint8Array): boolean {
    // `ws` may queue the payload as is (no copy), and `bytes` is a view of the connection's
    // reused buffer: one copy per flush.
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(Buffer.from(bytes), { binary: true });
    return false;
  }

  override admit(): void {
    setMaxPayload(this.ws, this.maxMessageSize);
  }

  protected closeSocket(reason: string): void {
    const ws = this.ws;
    ws.close(1000, reason.slice(0, 120));
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  attach(listener: ConnectionListener): void {
    const input = this.bind(listener.open(this));
    let error: string | undefined;
    this.ws.on('message', (data: RawData, isBinary: boolean) => {
      if (this.closed) return;
      if (!isBinary) {
        input.violation(TransportErrorCode.TextMessage, 'text WebSocket messages are not accepted');
        return;
      }
      input.data(toBytes(data));
    });
    this.ws.on('error', (e: Error & { code?: string }) => (error = e.code ?? e.message));
    this.ws.on('close', () => this.socketClosed(error ? `socket error ${error}` : 'peer closed'));
  }
}

/**
 * `ws` has one maxPayload per server and keeps it per socket in its receiver, which reads it
 * at each frame header (and at each fragment, against the message so far): raising it there
 * lets a logged-in connection send what a connection before login may not. The package is
 * pinned; test/integration/ws-message-size.test.ts fails if the field goes away.
 */
function setMaxPayload(ws: WebSocket, bytes: number): void {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes;
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

export async function listenWs(opts: HttpServerOptions): Promise<HttpServerHandle> {
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void handleHttp(req.method ?? 'GET', req.url ?? '/', opts.routes, opts.site).then((reply) => {
      res.writeHead(reply.status, reply.headers);
      res.end(req.method === 'HEAD' ? undefined : reply.body);
    });
  };
  const server = opts.tls
    ? https.createServer(
        { cert: readFileSync(opts.tls.certFile), key: readFileSync(opts.tls.keyFile) },
        onRequest,
      )
    : http.createServer(onRequest);
  const wss = new WebSocketServer({
    noServer: true,
    // Until login; each connection's limit is raised when it logs in (admit).
    maxPayload: opts.loginMessageSize,
    perMessageDeflate: false,
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const urlPath = (req.url ?? '').split('?')[0];
    if (urlPath !== '/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      (socket as net.Socket).setNoDelay(true);
      new WsConnection(
        ws,
        normalizeAddress(req.socket.remoteAddress),
        opts.connection,
        opts.maxMessageSize,
      ).attach(opts.listener);
    });
  });
  server.on('clientError', (_e: Error, socket: net.Socket) => socket.destroy());

  const listening = await listen(server, opts.port, opts.host, () => {
    wss.close();
    server.closeAllConnections();
  });
  return { engine: 'ws', ...listening };
}
