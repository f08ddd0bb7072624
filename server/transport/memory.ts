/**
 * An in-memory transport for tests: no sockets, no timers. `MemoryConnection` is the
 * server's side; `MemoryPeer` is the other end, which records every write (one entry per
 * write, so "one write per flush" can be checked) and can push bytes in.
 */
import {
  BaseConnection,
  type ConnectionInput,
  type ConnectionListener,
  type ConnectionOptions,
  type TransportKind,
} from './connection.js';

export class MemoryConnection extends BaseConnection {
  /** Every write, in order: each is one flush's worth of frames. */
  readonly writes: Uint8Array[] = [];
  /** What the pretend socket still holds; tests raise it to simulate a slow reader. */
  socketBytes = 0;
  /**
   * Take each write's view as given and keep it queued, as a TCP socket does when the kernel
   * does not take everything at once (no copy: the connection must not write over it).
   */
  holdsWrites = false;
  closeReason: string | undefined;

  constructor(options: ConnectionOptions, transport: TransportKind = 'tcp', remoteAddress = '127.0.0.1') {
    super(transport, remoteAddress, options);
  }

  protected socketBuffered(): number {
    return this.socketBytes;
  }

  protected write(bytes: Uint8Array): boolean {
    if (this.holdsWrites) {
      this.writes.push(bytes);
      return true;
    }
    // A copy: `bytes` is a view of the connection's buffer, written over after the flush.
    this.writes.push(bytes.slice());
    return false;
  }

  protected closeSocket(reason: string): void {
    this.closeReason = reason;
    this.socketClosed(reason);
  }

  /** The peer hangs up. */
  peerClose(reason = 'peer closed'): void {
    this.socketClosed(reason);
  }
}

export class MemoryPeer {
  readonly input: ConnectionInput;

  constructor(
    readonly conn: MemoryConnection,
    listener: ConnectionListener,
  ) {
    this.input = conn.bind(listener.open(conn));
  }

  /** Bytes from the peer: a TCP chunk or one WebSocket message, by the connection's transport. */
  send(bytes: Uint8Array): void {
    if (!this.conn.closed) this.input.data(bytes);
  }

  /** Everything the server wrote, as one byte string. */
  received(): Uint8Array {
    const total = this.conn.writes.reduce((n, w) => n + w.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const w of this.conn.writes) {
      out.set(w, at);
      at += w.length;
    }
    return out;
  }
}

/** Opens an in-memory connection to `listener` and returns its peer end. */
export function connectMemory(
  listener: ConnectionListener,
  options: ConnectionOptions,
  transport: TransportKind = 'tcp',
  remoteAddress = '127.0.0.1',
): MemoryPeer {
  return new MemoryPeer(new MemoryConnection(options, transport, remoteAddress), listener);
}
