/**
 * Raw TCP (node:net), or TLS on the same port when a certificate is configured. The stream
 * carries frames back to back; a chunk may hold any part of any number of frames.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { normalizeAddress } from './address.js';
import { BaseConnection, type ConnectionListener, type ConnectionOptions } from './connection.js';

/** How long a closing socket may take to drain before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

class TcpConnection extends BaseConnection {
  constructor(
    private readonly socket: net.Socket,
    options: ConnectionOptions,
  ) {
    super('tcp', normalizeAddress(socket.remoteAddress), options);
  }

  protected socketBuffered(): number {
    return this.socket.writableLength;
  }

  protected write(bytes: Uint8Array): boolean {
    if (!this.socket.writable) return false;
    // No copy: node drops its reference once the kernel has taken the bytes, which a write
    // that leaves nothing queued (writableLength 0 right after it) has done synchronously.
    this.socket.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    return this.socket.writableLength > 0;
  }

  protected closeSocket(): void {
    const socket = this.socket;
    socket.end();
    // A peer that stops reading would hold the socket open forever.
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  /** Called by the listener once the socket is wired. */
  attach(listener: ConnectionListener): void {
    const input = this.bind(listener.open(this));
    let error: string | undefined;
    this.socket.on('data', (chunk: Buffer) => {
      if (!this.closed) input.data(chunk);
    });
    this.socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    this.socket.on('close', () => this.socketClosed(error ? `socket error ${error}` : 'peer closed'));
  }
}

export interface Listening {
  readonly port: number;
  /** Stops accepting; open connections are left to their owner. */
  stopAccepting(): void;
  /** Stops accepting and resolves once the server has closed (after `beforeClose`). */
  close(): Promise<void>;
}
export type TcpListener = Listening;

export function listenTcp(opts: {
  host: string;
  port: number;
  tls?: TlsFiles | undefined;
  listener: ConnectionListener;
  connection: ConnectionOptions;
}): Promise<TcpListener> {
  const onSocket = (socket: net.Socket) => {
    socket.setNoDelay(true);
    new TcpConnection(socket, opts.connection).attach(opts.listener);
  };
  const server = opts.tls
    ? tls.createServer(
        { cert: readFileSync(opts.tls.certFile), key: readFileSync(opts.tls.keyFile) },
        onSocket,
      )
    : net.createServer(onSocket);
  // A handshake that fails (plain bytes on a TLS port, a bad client hello) is the peer's problem.
  server.on('tlsClientError', (_e: Error, socket: net.Socket) => socket.destroy());
  return listen(server, opts.port, opts.host);
}

/** Binds a node:net (or http/tls) server and reports the port it got. */
export function listen(
  server: net.Server,
  port: number,
  host: string,
  beforeClose?: () => void,
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as net.AddressInfo;
      const closed = new Promise<void>((done) => server.once('close', () => done()));
      const stopAccepting = () => {
        if (server.listening) server.close();
      };
      resolve({
        port: address.port,
        stopAccepting,
        close: () => {
          stopAccepting();
          beforeClose?.();
          return closed;
        },
      });
    });
  });
}
