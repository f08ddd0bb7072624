/**
 * What every transport gives the rest of the server: a Connection that takes whole frames
 * and a ConnectionInput that receives bytes. Transports know bytes, never packet types; the
 * one thing they read from a frame is its header (size u16 LE at +0, opcode u16 LE at +2),
 * to count what goes out and label what is dropped.
 *
 * Send path: one append buffer per connection, `out` (a shared/codec Writer), reused for the
 * life of the connection. Its bytes are whole frames back to back, exactly as they go on the
 * wire:
 *
 *   out.buf  [ frame | frame | ... | frame | (appended, not yet committed) | free ... ]
 *            0                      ^ committed                           ^ out.pos    ^ capacity
 *   frame    size u16 LE (whole frame) · opcode u16 LE · crc u16 LE · payload
 *
 * Two ways in, one way out:
 *   - the replication writer appends frames straight into `out` (no per-frame allocation),
 *     asks `behind()` once per client per tick to decide whether to skip droppable sections
 *     (reporting them with `skipped()`), and calls `commit()` once when done;
 *   - `send(frame, delivery)` (session packets, errors) copies one frame into `out` and
 *     commits it.
 *   - a FlushScheduler later calls `flush()`: everything in [0, out.pos) goes to the socket in
 *     ONE write, then `out.pos = 0` and the same memory is written over next time. TCP hands
 *     the socket a view of the buffer, no copy: when the kernel takes it all at once (the
 *     usual case) nothing holds it after the write; when the socket keeps it queued, the
 *     connection leaves that memory to the socket and takes a new buffer. The ws transport
 *     copies (ws may queue what it is given); uWebSockets.js copies internally.
 *
 * The policy, with buffered = out.pos + the socket's own unsent bytes:
 *   droppable frame (send) or section (behind()) while buffered > soft limit
 *     -> skipped and counted as dropped; send returns false
 *   buffered past the hard limit (checked by send before appending, and by commit)
 *     -> the whole buffer is discarded and the input is told `slowConsumer()` (once), which
 *        normally sends a last Error (kept only if it fits under the hard limit) and closes
 *        the connection
 *
 * Memory: the buffer is made on first use at 512 bytes and doubles as needed; a flush that
 * used under a quarter of a buffer grown past 64 KB shrinks it, so a spike does not pin
 * memory; a cut puts it back to 512 bytes and a closed connection lets it go, as does
 * releaseBuffer() (the dispatch core's deadline sweep, for connections not yet logged in).
 * A smaller
 * buffer is fitted to its recent use too: after OUT_FIT_FLUSHES flushes that all used under
 * a quarter of it, it is remade at the size the largest of them needs. Entering the world
 * (every entity in view spawned at once) grows a buffer to several KB while a walking
 * player's tick is ~100 bytes: kept at that size by a thousand connections, the spike's
 * room would be most of what a connection costs.
 */
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { Writer } from '../../shared/codec/writer.js';
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
  /**
   * The connection's append buffer. Frames written at out.pos go out with the next flush.
   * Call commit() after appending (before returning to the event loop).
   */
  readonly out: Writer;
  /**
   * Called after appending to `out` directly: applies the hard limit once (over it, the
   * buffer is discarded and the input is told slowConsumer()), counts the appended frames
   * per opcode for the SendObserver and marks the connection for flushing. False when the
   * connection is closed or being cut (what was appended is then discarded).
   */
  commit(): boolean;
  /** Whether droppable data should be skipped now: buffered bytes over the soft limit. */
  behind(): boolean;
  /** Reports a droppable section of `bytes` bytes with this opcode that was skipped. */
  skipped(opcode: number, bytes: number): void;
  /** Appends a copy of one or more whole frames; false when dropped (droppable over the soft limit) or closed. */
  send(frame: Uint8Array, delivery: Delivery): boolean;
  /** Our buffered bytes (out.pos) plus the socket's own unsent bytes. */
  bufferedBytes(): number;
  /** Writes everything buffered in one write. */
  flush(): void;
  /** Flushes, then closes. Idempotent. */
  close(reason: string): void;
  /**
   * What was sent so far was the last: every later send or append is discarded, while the
   * connection stays open until closed (a Bye at shutdown, before the final saves run).
   */
  seal(): void;
  /**
   * Lets the append buffer go if nothing is waiting in it; the next send makes a new one.
   * For connections that send rarely (before login), so that thousands of them waiting
   * cost no buffer each.
   */
  releaseBuffer(): void;
  /**
   * The peer has logged in. A WebSocket connection takes messages up to the engine's full
   * size from now on instead of only what the login packets need; a TCP stream is bounded
   * by the frame decoder alone, so nothing changes for it.
   */
  admit(): void;
  readonly closed: boolean;
}

/** Where a connection's incoming bytes and events go; made by a ConnectionListener. */
export interface ConnectionInput {
  /** TCP: any chunk of the stream. WebSocket: exactly one binary message. */
  data(chunk: Uint8Array): void;
  /** The peer broke a rule only the transport sees (a text WebSocket message). */
  violation(code: TransportErrorCode, reason: string): void;
  /** The connection went over the hard send limit; its buffer has been discarded. */
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
  /** The connection has something buffered: flush it soon. */
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

/** Capacity of a connection's append buffer when first used (and after a cut). */
export const OUT_INITIAL_CAPACITY = 512;
/** A buffer grown past this is shrunk after a flush that used under a quarter of it. */
export const OUT_SHRINK_ABOVE = 64 * 1024;
/** Flushes in a row that used under a quarter of a buffer before it is fitted (~2 s at 20 Hz). */
export const OUT_FIT_FLUSHES = 40;

/** The capacity for a buffer that has to hold `bytes` with room to spare: 512 · 2^k ≥ 2 · bytes. */
function capacityFor(bytes: number): number {
  let size = OUT_INITIAL_CAPACITY;
  while (size < bytes * 2) size *= 2;
  return size;
}

/**
 * Shared send path and lifecycle for every transport. A transport supplies how to write
 * one batch, how much its socket holds and how to close it, and reports the socket's close
 * with `socketClosed`.
 */
export abstract class BaseConnection implements Connection {
  readonly id = nextConnectionId();
  /** The append buffer, made on first use and let go when the socket is gone. */
  private writer: Writer | undefined;
  /** out.pos after the last commit: [0, committed) is whole frames, counted and admitted. */
  private committed = 0;
  /** markDirty was called since the last flush. */
  private dirty = false;
  /** Flushes in a row that used under a quarter of the buffer, and the most one of them used. */
  private smallFlushes = 0;
  private smallPeak = 0;
  private input: ConnectionInput | undefined;
  private closing = false;
  /** seal() was called: nothing more is queued. */
  private sealed = false;
  private cutting = false;
  private done = false;
  private doneReason = '';

  constructor(
    readonly transport: TransportKind,
    readonly remoteAddress: string,
    private readonly options: ConnectionOptions,
  ) {}

  /** Bytes written to the socket but not yet sent by it. */
  protected abstract socketBuffered(): number;
  /**
   * One write of one or more whole frames. `bytes` is a view of the connection's reused
   * buffer. A transport either copies what it keeps past the call and returns false, or
   * hands the view itself to its socket and returns true when the socket still holds it:
   * the connection then leaves that memory to the socket and appends into a new buffer.
   */
  protected abstract write(bytes: Uint8Array): boolean;
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

  get out(): Writer {
    return (this.writer ??= new Writer(OUT_INITIAL_CAPACITY));
  }

  commit(): boolean {
    const w = this.writer;
    if (!w) return !this.closed && !this.sealed;
    if (this.closing || this.done || this.sealed) {
      w.pos = this.committed;
      return false;
    }
    const start = this.committed;
    if (w.pos <= start) {
      // Nothing appended (or the writer rewound over what it had appended).
      this.committed = w.pos;
      return true;
    }
    if (w.pos + this.socketBuffered() > this.options.limits.hardLimit) {
      this.tally(w, start, w.pos, true);
      if (this.cutting) {
        // Being cut already: what does not fit is simply not kept.
        w.pos = start;
        return false;
      }
      this.cut();
      return false;
    }
    this.committed = this.tally(w, start, w.pos, false);
    if (!this.dirty) {
      this.dirty = true;
      this.options.scheduler.markDirty(this);
    }
    return true;
  }

  behind(): boolean {
    return this.bufferedBytes() > this.options.limits.softLimit;
  }

  skipped(opcode: number, bytes: number): void {
    this.options.observer?.dropped(opcode, bytes);
  }

  send(frame: Uint8Array, delivery: Delivery): boolean {
    if (this.closing || this.done || this.sealed) return false;
    const buffered = this.bufferedBytes();
    if (delivery === 'droppable' && buffered > this.options.limits.softLimit) {
      this.options.observer?.dropped(frameOpcode(frame), frame.length);
      return false;
    }
    if (buffered + frame.length > this.options.limits.hardLimit) {
      // Refused before it is copied, so a frame that cannot fit never grows the buffer.
      // While cutting, the last Error simply does not fit: it is dropped.
      this.options.observer?.dropped(frameOpcode(frame), frame.length);
      if (!this.cutting) this.cut();
      return false;
    }
    this.out.raw(frame);
    return this.commit();
  }

  bufferedBytes(): number {
    return (this.writer?.pos ?? 0) + (this.done ? 0 : this.socketBuffered());
  }

  flush(): void {
    this.dirty = false;
    const w = this.writer;
    if (this.done || !w || w.pos === 0) return;
    const n = w.pos;
    // Emptied before the write: a transport that closes from inside write() (uWS at its own
    // limit) re-enters flush through close() and must find nothing left to write.
    w.pos = 0;
    this.committed = 0;
    const kept = this.write(w.buf.subarray(0, n));
    if (this.writer !== w) return;
    // The socket keeps that memory: new memory for the next appends, fitted to this flush.
    if (kept) this.resize(w, w.buf.length > OUT_SHRINK_ABOVE ? capacityFor(n) : w.buf.length);
    else if (w.pos === 0) this.fit(w, n);
  }

  /** After a flush of `n` bytes: shrinks a buffer that a spike left larger than its use. */
  private fit(w: Writer, n: number): void {
    const capacity = w.buf.length;
    if (capacity <= OUT_INITIAL_CAPACITY || n * 4 >= capacity) {
      this.smallFlushes = 0;
      this.smallPeak = 0;
      return;
    }
    if (capacity > OUT_SHRINK_ABOVE) {
      this.resize(w, capacityFor(n));
      return;
    }
    if (n > this.smallPeak) this.smallPeak = n;
    if (++this.smallFlushes < OUT_FIT_FLUSHES) return;
    this.resize(w, capacityFor(this.smallPeak));
  }

  releaseBuffer(): void {
    if (this.writer?.pos === 0 && !this.dirty) this.writer = undefined;
  }

  admit(): void {}

  seal(): void {
    this.sealed = true;
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
    this.writer = undefined;
    this.committed = 0;
    this.input?.closed(reason);
  }

  /** Over the hard limit: discard everything buffered and have the connection cut. */
  private cut(): void {
    this.cutting = true;
    const w = this.writer;
    if (w) {
      w.pos = 0;
      if (w.buf.length > OUT_INITIAL_CAPACITY) this.resize(w, OUT_INITIAL_CAPACITY);
    }
    this.committed = 0;
    if (this.input) this.input.slowConsumer();
    else this.close('slow consumer');
  }

  /** New memory for the writer, keeping what it holds (usually nothing). */
  private resize(w: Writer, capacity: number): void {
    const next = new Uint8Array(Math.max(capacity, w.pos));
    next.set(w.buf.subarray(0, w.pos));
    w.buf = next;
    w.view = new DataView(next.buffer);
    this.smallFlushes = 0;
    this.smallPeak = 0;
  }

  /**
   * Walks the whole frames in out.buf[from, to), reporting each to the observer as queued (or
   * dropped); returns where the walk stopped: `to`, or the start of an incomplete frame (a
   * header not yet filled in), which the next commit walks again.
   */
  private tally(w: Writer, from: number, to: number, dropped: boolean): number {
    const b = w.buf;
    const observer = this.options.observer;
    let at = from;
    while (at + HEADER_SIZE <= to) {
      const size = b[at]! | (b[at + 1]! << 8);
      if (size < HEADER_SIZE || at + size > to) break;
      if (observer) {
        const opcode = b[at + 2]! | (b[at + 3]! << 8);
        if (dropped) observer.dropped(opcode, size);
        else observer.queued(opcode, size);
      }
      at += size;
    }
    return at;
  }
}
