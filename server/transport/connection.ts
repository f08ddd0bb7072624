/**
 * What every transport gives the rest of the server: a Connection that takes whole frames
 * and a ConnectionInput that receives bytes. Transports know bytes, never packet types; the
 * one thing they read from a frame is its header's opcode (offset 2, u16 LE), to label drops.
 *
 * Send path: `send` queues a frame; a FlushScheduler later writes everything queued for a
 * connection in one write. The policy on the queue, with buffered = our queue + the socket's
 * own buffer:
 *   droppable frame while buffered > soft limit  -> skipped, counted, send returns false
 *   any frame that would take buffered past the hard limit -> the queue is discarded and the
 *     input is told `slowConsumer()`, which normally sends a last Error (queued only if it
 *     fits under the hard limit) and closes the connection
 */
import type { Delivery } from '../../shared/protocol/define.js';

export type TransportKind = 'tcp' | 'ws';

/** Error codes that only a transport can detect (not in the shared codec). */
export const TransportErrorCode = {
  /** A WebSocket text message: the protocol is binary frames only. */
  TextMessage: 'ERR_TEXT_MESSAGE',
} as const;
export type TransportErrorCode = (typeof TransportErrorCode)[keyof typeof TransportErrorCode];

export interface Connection {
  readonly id: number;
  readonly transport: TransportKind;
  readonly remoteAddress: string;
  /** Queues one or more whole frames; false when dropped (droppable over the soft limit) or closed. */
  send(frame: Uint8Array, delivery: Delivery): boolean;
  /** Our queued bytes plus the socket's own unsent bytes. */
  bufferedBytes(): number;
  /** Writes everything queued in one write. */
  flush(): void;
  /** Flushes, then closes. Idempotent. */
  close(reason: string): void;
  readonly closed: boolean;
}

/** Where a connection's incoming bytes and events go; made by a ConnectionListener. */
export interface ConnectionInput {
  /** TCP: any chunk of the stream. WebSocket: exactly one binary message. */
  data(chunk: Uint8Array): void;
  /** The peer broke a rule only the transport sees (a text WebSocket message). */
  violation(code: TransportErrorCode, reason: string): void;
  /** The connection went over the hard send limit; its queue has been discarded. */
  slowConsumer(): void;
  /** The connection is gone (called once). */
  closed(reason: string): void;
}

export interface ConnectionListener {
  open(conn: Connection): ConnectionInput;
}

export interface SendLimits {
  readonly softLimit: number;
  readonly hardLimit: number;
}

/** Counts what the send path does, by opcode (the metrics module implements it). */
export interface SendObserver {
  queued(opcode: number, bytes: number): void;
  dropped(opcode: number, bytes: number): void;
}

/** Something the flush scheduler can visit. */
export interface Flushable {
  flush(): void;
}

export interface FlushRequester {
  /** The connection has something queued: flush it soon. */
  markDirty(conn: Flushable): void;
}

export interface ConnectionOptions {
  readonly limits: SendLimits;
  readonly scheduler: FlushRequester;
  readonly observer?: SendObserver;
}

let lastConnectionId = 0;
/** Connection ids are unique in the process across transports; they fit a u32 varint. */
export function nextConnectionId(): number {
  lastConnectionId = lastConnectionId >= 0xffffffff ? 1 : lastConnectionId + 1;
  return lastConnectionId;
}

export function frameOpcode(frame: Uint8Array): number {
  return frame.length >= 4 ? frame[2]! | (frame[3]! << 8) : 0;
}

/**
 * The pure half of a connection's send path: a queue of frames and the limits policy.
 * `socketBuffered` is read at each decision, so a transport's own backpressure counts.
 */
export type Admit = 'queued' | 'dropped' | 'overLimit';

export class SendQueue {
  private frames: Uint8Array[] = [];
  private bytes = 0;

  constructor(
    private readonly limits: SendLimits,
    private readonly socketBuffered: () => number,
  ) {}

  get queuedBytes(): number {
    return this.bytes;
  }

  get length(): number {
    return this.frames.length;
  }

  buffered(): number {
    return this.bytes + this.socketBuffered();
  }

  admit(frame: Uint8Array, delivery: Delivery): Admit {
    const buffered = this.buffered();
    if (delivery === 'droppable' && buffered > this.limits.softLimit) return 'dropped';
    if (buffered + frame.length > this.limits.hardLimit) return 'overLimit';
    this.frames.push(frame);
    this.bytes += frame.length;
    return 'queued';
  }

  clear(): void {
    this.frames = [];
    this.bytes = 0;
  }

  /** Everything queued as one contiguous array (the frame itself when there is one), then empty. */
  take(): Uint8Array | undefined {
    const frames = this.frames;
    if (frames.length === 0) return undefined;
    const total = this.bytes;
    this.clear();
    if (frames.length === 1) return frames[0]!;
    const out = new Uint8Array(total);
    let at = 0;
    for (const f of frames) {
      out.set(f, at);
      at += f.length;
    }
    return out;
  }
}

/**
 * Shared send path and lifecycle for every transport. A transport supplies how to write
 * one batch, how much its socket holds and how to close it, and reports the socket's close
 * with `socketClosed`.
 */
export abstract class BaseConnection implements Connection {
  readonly id = nextConnectionId();
  private readonly queue: SendQueue;
  private input: ConnectionInput | undefined;
  private closing = false;
  private cutting = false;
  private done = false;
  private doneReason = '';

  constructor(
    readonly transport: TransportKind,
    readonly remoteAddress: string,
    private readonly options: ConnectionOptions,
  ) {
    this.queue = new SendQueue(options.limits, () => (this.done ? 0 : this.socketBuffered()));
  }

  /** Bytes written to the socket but not yet sent by it. */
  protected abstract socketBuffered(): number;
  /** One write of one or more whole frames. */
  protected abstract write(bytes: Uint8Array): void;
  /** Starts closing the socket; the transport calls `socketClosed` when it is gone. */
  protected abstract closeSocket(reason: string): void;

  /** Connects the connection to the dispatch side; done by the transport right after accept. */
  bind(input: ConnectionInput): ConnectionInput {
    this.input = input;
    // Closed while being opened (a refused connection): it still hears about it, once.
    if (this.done) input.closed(this.doneReason);
    return input;
  }

  get closed(): boolean {
    return this.closing || this.done;
  }

  send(frame: Uint8Array, delivery: Delivery): boolean {
    if (this.closing || this.done) return false;
    const wasEmpty = this.queue.length === 0;
    const result = this.queue.admit(frame, delivery);
    if (result === 'queued') {
      this.options.observer?.queued(frameOpcode(frame), frame.length);
      if (wasEmpty) this.options.scheduler.markDirty(this);
      return true;
    }
    if (result === 'dropped') {
      this.options.observer?.dropped(frameOpcode(frame), frame.length);
      return false;
    }
    // Over the hard limit. While cutting, the last Error simply does not fit: it is dropped.
    this.options.observer?.dropped(frameOpcode(frame), frame.length);
    if (!this.cutting) {
      this.cutting = true;
      this.queue.clear();
      if (this.input) this.input.slowConsumer();
      else this.close('slow consumer');
    }
    return false;
  }

  bufferedBytes(): number {
    return this.queue.buffered();
  }

  flush(): void {
    if (this.done) return;
    const bytes = this.queue.take();
    if (bytes) this.write(bytes);
  }

  close(reason: string): void {
    if (this.closing || this.done) return;
    this.flush();
    this.closing = true;
    this.closeSocket(reason);
  }

  /** The transport's socket is gone: tell the input once. */
  protected socketClosed(reason: string): void {
    if (this.done) return;
    this.done = true;
    this.doneReason = reason;
    this.closing = true;
    this.queue.clear();
    this.input?.closed(reason);
  }
}
