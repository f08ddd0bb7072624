/**
 * ByteTransport over raw TCP (node:net), or TLS (node:tls) when asked. Nagle is off
 * (setNoDelay): frames are small and latency matters more than packet count. A TCP chunk may
 * hold any part of any number of frames; the client's FrameDecoder reassembles them.
 *
 * A plain TCP connection made here reads with node's `onread` into one buffer shared by every
 * such connection in the process, and hands each chunk on as a fresh copy: a bot swarm reads
 * 2,000 sockets twenty times a second, and this skips the readable stream's work per chunk
 * (push, 'data', the read-more tick) while giving consumers what 'data' gave them.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ignoreBytes, ignoreClose, type ByteTransport } from '../../shared/client/transport.js';

export interface TcpConnectOptions {
  host: string;
  port: number;
  /** true for TLS with default options, or node:tls options (servername, ca, rejectUnauthorized, ...). */
  tls?: boolean | tls.ConnectionOptions;
  /** Give up when the connection is not up after this long (ms). Default 10 s. */
  timeoutMs?: number;
}

/** Where plain TCP connections read; each read is copied out before the next can happen. */
let sharedReadBuffer: Uint8Array | undefined;

export class TcpTransport implements ByteTransport {
  onBytes = ignoreBytes;
  onClose = ignoreClose;
  private closed = false;
  private error = '';

  static connect(options: TcpConnectOptions): Promise<TcpTransport> {
    const { host, port } = options;
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const useTls = options.tls !== undefined && options.tls !== false;
      const tlsOptions = typeof options.tls === 'object' ? options.tls : {};
      let transport: TcpTransport | undefined;
      const socket = useTls
        ? tls.connect({ servername: net.isIP(host) ? undefined : host, ...tlsOptions, host, port })
        : net.connect({
            host,
            port,
            onread: {
              buffer: (sharedReadBuffer ??= new Uint8Array(64 * 1024)),
              // A copy, as 'data' chunks are: the decoder may keep views into what it is given.
              // Reading starts after 'connect', which sets `transport`.
              callback: (n, buf) => {
                transport?.onBytes(buf.slice(0, n));
                return true;
              },
            },
          });
      const readyEvent = useTls ? 'secureConnect' : 'connect';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`cannot connect to ${host}:${port}: no answer after ${timeoutMs} ms`));
      }, timeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(`cannot connect to ${host}:${port}: ${err.message}`));
      };
      socket.once('error', onError);
      socket.once(readyEvent, () => {
        clearTimeout(timer);
        socket.off('error', onError);
        transport = new TcpTransport(socket, useTls);
        resolve(transport);
      });
    });
  }

  /**
   * Wraps a connected socket (also used by tests and servers that accept sockets).
   * `data`: read it through 'data' events (false when `connect` gave it an onread callback).
   */
  constructor(
    readonly socket: net.Socket,
    data = true,
  ) {
    socket.setNoDelay(true);
    // A plain Uint8Array view (no copy): Buffer's slice() shares memory where Uint8Array's
    // copies, and decoded `bytes` fields rely on the copy. Socket chunks are never reused,
    // so the decoder may keep views into them.
    if (data)
      socket.on('data', (chunk: Buffer) =>
        this.onBytes(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)),
      );
    socket.on('error', (err) => {
      this.error = err.message;
    });
    socket.on('close', () => this.finish(this.error || 'connection closed by the server'));
  }

  send(bytes: Uint8Array): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(bytes);
  }

  close(): void {
    if (this.closed) return;
    // end() lets queued frames (a LogoutRequest, say) reach the server before the FIN.
    this.socket.end();
    this.socket.setTimeout(2_000, () => this.socket.destroy());
    this.finish('closed');
  }

  bufferedAmount(): number {
    return this.socket.writableLength;
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(reason);
  }
}
