/**
 * ByteTransport over a WebSocket: one binary message carries one or more whole frames.
 * Works with the browser's WebSocket and with the `ws` package's class passed in from Node
 * (both have binaryType 'arraybuffer', the on* handler properties and bufferedAmount).
 * Under `ws` messages come as Node Buffers ('nodebuffer'), which spares a copy of each.
 */
import { ignoreBytes, ignoreClose, type ByteTransport } from './transport.js';

/** The part of the WebSocket API used here; `any` events so both DOM and `ws` types fit. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
}

export type WebSocketConstructorLike = new (url: string) => WebSocketLike;

const OPEN = 1;

export interface WebSocketConnectOptions {
  /** Give up when the socket has not opened after this long (ms). */
  timeoutMs?: number;
}

/**
 * Binary messages as bytes without a copy where the class can: 'nodebuffer' (the `ws`
 * package, whose 'arraybuffer' copies every message out of its Buffer), else 'arraybuffer'
 * (a browser ignores, or refuses, a type it does not know).
 */
function binaryMessages(socket: WebSocketLike): void {
  try {
    socket.binaryType = 'nodebuffer';
  } catch {
    // Not a type this class knows.
  }
  if (socket.binaryType !== 'nodebuffer') socket.binaryType = 'arraybuffer';
}

export class WebSocketTransport implements ByteTransport {
  onBytes = ignoreBytes;
  onClose = ignoreClose;
  private closed = false;
  private lastError = '';

  /** Opens a socket to `url` (ws:// or wss://) and resolves once it is open. */
  static connect(
    url: string,
    WebSocketCtor: WebSocketConstructorLike | undefined = (
      globalThis as { WebSocket?: WebSocketConstructorLike }
    ).WebSocket,
    options: WebSocketConnectOptions = {},
  ): Promise<WebSocketTransport> {
    if (!WebSocketCtor) {
      return Promise.reject(new Error('no WebSocket class here: pass one (for example the ws package)'));
    }
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = new WebSocketCtor(url);
      } catch (err) {
        reject(new Error(`cannot open ${url}: ${describe(err)}`));
        return;
      }
      binaryMessages(socket);
      const timer = setTimeout(() => {
        socket.onopen = socket.onerror = socket.onclose = null;
        socket.close();
        reject(new Error(`cannot connect to ${url}: no answer after ${timeoutMs} ms`));
      }, timeoutMs);
      let error = '';
      socket.onerror = (event) => {
        error = describe(event);
      };
      socket.onclose = (event) => {
        clearTimeout(timer);
        reject(new Error(`cannot connect to ${url}: ${error || closeReason(event)}`));
      };
      socket.onopen = () => {
        clearTimeout(timer);
        resolve(new WebSocketTransport(socket));
      };
    });
  }

  /** Wraps a socket that is already open. */
  constructor(private readonly socket: WebSocketLike) {
    binaryMessages(socket);
    socket.onopen = null;
    socket.onmessage = (event: { data: unknown }) => this.receive(event.data);
    socket.onerror = (event) => {
      this.lastError = describe(event);
    };
    socket.onclose = (event) => this.finish(this.lastError || closeReason(event));
  }

  send(bytes: Uint8Array): void {
    if (this.closed || this.socket.readyState !== OPEN) return;
    this.socket.send(bytes);
  }

  close(): void {
    if (this.closed) return;
    this.socket.close(1000, 'bye');
    this.finish('closed');
  }

  bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }

  private receive(data: unknown): void {
    if (this.closed) return;
    if (data instanceof ArrayBuffer) {
      this.onBytes(new Uint8Array(data));
    } else if (ArrayBuffer.isView(data)) {
      this.onBytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    } else {
      // The protocol is binary only: a text message means the peer is not a Wyvern server.
      this.socket.close(1003, 'binary frames only');
      this.finish('the server sent a text message; this protocol is binary');
    }
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    const socket = this.socket;
    socket.onmessage = socket.onerror = socket.onclose = null;
    this.onClose(reason);
  }
}

function closeReason(event: unknown): string {
  const e = event as { code?: number; reason?: string } | undefined;
  if (!e || e.code === undefined) return 'connection closed';
  return e.reason ? `connection closed (${e.code}: ${e.reason})` : `connection closed (${e.code})`;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  const e = value as { message?: unknown; error?: unknown } | undefined;
  if (e && typeof e.message === 'string' && e.message) return e.message;
  if (e && e.error instanceof Error) return e.error.message;
  // Browsers give no detail on a WebSocket error, by design.
  return 'connection failed';
}
