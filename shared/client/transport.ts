/**
 * The byte transport the client SDK runs over: a TCP socket, a WebSocket or an in-memory pipe.
 * It moves bytes and nothing more; framing and decoding live in the client, so one
 * FrameDecoder handles TCP chunks (any part of any number of frames) and WebSocket messages
 * (whole frames) alike.
 */

export interface ByteTransport {
  /** Queues bytes for the peer. Ignored after close. */
  send(bytes: Uint8Array): void;
  /** Closes the connection; `onClose` follows once, after any bytes already received. */
  close(): void;
  /** Set by the client: called with every chunk or message received, in order. */
  onBytes: (bytes: Uint8Array) => void;
  /** Set by the client: called once when the connection ends, for any reason. */
  onClose: (reason: string) => void;
  /** Bytes queued but not yet handed to the network, where the transport knows. */
  bufferedAmount?(): number;
}

/** Handlers a transport starts with, until the client sets its own. */
export const ignoreBytes = (_bytes: Uint8Array): void => {};
export const ignoreClose = (_reason: string): void => {};

/**
 * One end of an in-memory connection. Delivery is asynchronous (a microtask per send), in
 * order, and a close reaches the peer after every byte sent before it, as on a socket.
 */
export class MemoryTransport implements ByteTransport {
  onBytes = ignoreBytes;
  onClose = ignoreClose;
  peer: MemoryTransport | undefined;
  private closed = false;
  private inFlight = 0;
  /** Every chunk this end sent, for tests that check the exact wire bytes (when kept). */
  readonly sent: Uint8Array[] = [];

  /** `keepSent` off for an end that lives as long as a page (the demo world's). */
  constructor(private readonly keepSent = true) {}

  send(bytes: Uint8Array): void {
    if (this.closed) return;
    // A copy: the sender may reuse its buffer, as it may with a socket.
    const copy = bytes.slice();
    if (this.keepSent) this.sent.push(copy);
    const peer = this.peer;
    this.inFlight += copy.length;
    queueMicrotask(() => {
      this.inFlight -= copy.length;
      if (peer && !peer.closed) peer.onBytes(copy);
    });
  }

  close(reason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    const peer = this.peer;
    queueMicrotask(() => {
      this.onClose(reason);
      if (peer && !peer.closed) {
        peer.closed = true;
        peer.onClose('closed by peer');
      }
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  bufferedAmount(): number {
    return this.inFlight;
  }
}

/** Two connected in-memory ends: `client` for the SDK, `server` for a scripted peer. */
export function createMemoryTransportPair(keepSent = true): {
  client: MemoryTransport;
  server: MemoryTransport;
} {
  const client = new MemoryTransport(keepSent);
  const server = new MemoryTransport(keepSent);
  client.peer = server;
  server.peer = client;
  return { client, server };
}
