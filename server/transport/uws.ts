/**
 * The HTTP port on uWebSockets.js: WebSocket at /ws and every HTTP route, in one native
 * event loop integration. Messages arrive as ArrayBuffers that are only valid during the
 * callback, so they are copied before reaching the frame decoder.
 */
import {
  BaseConnection,
  TransportErrorCode,
  type ConnectionInput,
  type ConnectionListener,
} from './connection.js';
import { handleHttp, STATUS_TEXT } from './http.js';
import { normalizeAddress } from './address.js';
import type { HttpServerHandle, HttpServerOptions, Uws } from './web.js';
import type { HttpResponse, TemplatedApp, WebSocket } from 'uWebSockets.js';

interface UserData {
  readonly address: string;
  conn?: UwsConnection;
  input?: ConnectionInput;
}

const decoder = new TextDecoder();

function addressOf(res: HttpResponse): string {
  return normalizeAddress(decoder.decode(res.getRemoteAddressAsText()));
}

/** WebSocket close code 1009, Message Too Big: what the ws engine closes with at its bound. */
const MESSAGE_TOO_BIG = 1009;

class UwsConnection extends BaseConnection {
  /** Logged in: messages up to the route's limit; before that, up to loginMessageSize. */
  private admitted = false;
  private tooBig = false;

  constructor(
    private readonly ws: WebSocket<UserData>,
    options: HttpServerOptions['connection'],
    private readonly loginMessageSize: number,
  ) {
    super('ws', ws.getUserData().address, options);
  }

  override admit(): void {
    this.admitted = true;
  }

  /**
   * Whether a whole message of `bytes` is one this connection may send now; if not, it is
   * closed as the ws engine closes one over its bound (1009, no Error packet: the message
   * was never read), so a client sees the same refusal on either engine.
   */
  accepts(bytes: number): boolean {
    if (this.admitted || bytes <= this.loginMessageSize) return true;
    this.tooBig = true;
    this.ws.end(MESSAGE_TOO_BIG);
    return false;
  }

  protected socketBuffered(): number {
    return this.ws.getBufferedAmount();
  }

  protected write(bytes: Uint8Array): boolean {
    // uWS copies the message into its own buffer during send, so the view of the
    // connection's reused buffer is passed as is.
    let status = 1;
    this.ws.cork(() => {
      status = this.ws.send(bytes, true, false);
    });
    // 2: uWS dropped the message at its own backpressure limit, which sits far above ours.
    if (status === 2) this.close('slow consumer');
    return false;
  }

  protected closeSocket(reason: string): void {
    // end() runs the close handler at once, which calls socketClosed.
    this.ws.end(1000, reason.slice(0, 120));
  }

  attach(listener: ConnectionListener): ConnectionInput {
    return this.bind(listener.open(this));
  }

  /** From the behavior's close handler. */
  gone(code: number): void {
    if (this.tooBig) this.socketClosed(`message over ${this.loginMessageSize} bytes before login`);
    else this.socketClosed(code === 1000 || code === 1001 ? 'peer closed' : `peer closed (${code})`);
  }
}

export function listenUws(uws: Uws, opts: HttpServerOptions): Promise<HttpServerHandle> {
  const app: TemplatedApp = opts.tls
    ? uws.SSLApp({ cert_file_name: opts.tls.certFile, key_file_name: opts.tls.keyFile })
    : uws.App();

  app.ws<UserData>('/ws', {
    compression: uws.DISABLED,
    // uWS has one limit per route, not per socket, and holds a message until it is whole:
    // the route takes what a logged-in connection may send (as the ws engine does after
    // admit()), and the bound before login is checked on each whole message (accepts). So
    // unlike the ws engine, which refuses at the fragment that passes the bound, a
    // connection that never logs in can hold up to this much in a half-sent message until
    // the login deadline closes it.
    maxPayloadLength: opts.maxMessageSize,
    // Our own soft and hard limits decide; uWS must never drop a message before they do.
    maxBackpressure: opts.connection.limits.hardLimit * 4 + opts.maxMessageSize,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      res.upgrade<UserData>(
        { address: addressOf(res) },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    open: (ws) => {
      const data = ws.getUserData();
      const conn = new UwsConnection(ws, opts.connection, opts.loginMessageSize);
      data.conn = conn;
      data.input = conn.attach(opts.listener);
    },
    message: (ws, message, isBinary) => {
      const { conn, input } = ws.getUserData();
      if (!conn || !input || conn.closed) return;
      if (!isBinary) {
        input.violation(TransportErrorCode.TextMessage, 'text WebSocket messages are not accepted');
        return;
      }
      if (!conn.accepts(message.byteLength)) return;
      input.data(new Uint8Array(message.slice(0)));
    },
    close: (ws, code) => {
      ws.getUserData().conn?.gone(code);
    },
  });

  app.any('/*', (res, req) => {
    const method = req.getMethod();
    // getUrl() is the path alone; the lab feed reads the query string.
    const query = req.getQuery();
    const url = query ? `${req.getUrl()}?${query}` : req.getUrl();
    let aborted = false;
    res.onAborted(() => (aborted = true));
    void handleHttp(method, url, opts.routes, opts.site).then((reply) => {
      if (aborted) return;
      res.cork(() => {
        res.writeStatus(`${reply.status} ${STATUS_TEXT[reply.status] ?? ''}`);
        for (const [k, v] of Object.entries(reply.headers)) res.writeHeader(k, v);
        if (method.toUpperCase() === 'HEAD') res.endWithoutBody(byteLength(reply.body));
        else res.end(reply.body);
      });
    });
  });

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (token) => {
      if (!token) {
        reject(new Error(`uWebSockets.js could not listen on ${opts.host}:${opts.port}`));
        return;
      }
      let listening = true;
      resolve({
        engine: 'uws',
        port: uws.us_socket_local_port(token as never),
        stopAccepting: () => {
          if (listening) uws.us_listen_socket_close(token);
          listening = false;
        },
        close: async () => {
          if (listening) uws.us_listen_socket_close(token);
          listening = false;
          // Idle keep-alive HTTP sockets would otherwise linger; WebSockets are closed by their owner first.
          (app as TemplatedApp & { close?: () => void }).close?.();
        },
      });
    });
  });
}

function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}
