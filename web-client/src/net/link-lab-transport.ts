/**
 * A ByteTransport between the client and the real one that runs every message, both ways,
 * through the link lab's delay queues, and reports each frame to the netcode stats.
 * With a clean link and nothing held, bytes pass straight through.
 */
import { ignoreBytes, ignoreClose, type ByteTransport } from '../../../shared/client/transport.js';
import { DelayQueue, isClean, type LinkSettings } from '../state/link-lab.js';

export interface FrameObserver {
  /** Called per frame (size includes the 6-byte header) of every message delivered or sent. */
  (dir: 'in' | 'out', opcode: number, size: number): void;
}

/** Walks the frames of one WebSocket message (whole frames only) without decoding them. */
export function eachFrame(bytes: Uint8Array, visit: (opcode: number, size: number) => void): void {
  let at = 0;
  while (at + 6 <= bytes.length) {
    const size = (bytes[at] as number) | ((bytes[at + 1] as number) << 8);
    const opcode = (bytes[at + 2] as number) | ((bytes[at + 3] as number) << 8);
    if (size < 6) return;
    visit(opcode, size);
    at += size;
  }
}

export class LinkLabTransport implements ByteTransport {
  onBytes = ignoreBytes;
  onClose = ignoreClose;
  readonly up: DelayQueue<Uint8Array>;
  readonly down: DelayQueue<Uint8Array>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closedReason: string | undefined;
  private done = false;

  constructor(
    private readonly inner: ByteTransport,
    settings: LinkSettings,
    private readonly observe: FrameObserver,
    private readonly now: () => number = () => performance.now(),
    rng: () => number = Math.random,
  ) {
    this.up = new DelayQueue<Uint8Array>(settings, rng);
    this.down = new DelayQueue<Uint8Array>(settings, rng);
    inner.onBytes = (bytes) => {
      if (isClean(this.down.settings) && this.down.size === 0) this.deliver(bytes);
      else {
        // The transport may reuse its buffer once the handler returns.
        this.down.push(bytes.slice(), this.now(), bytes.length);
        this.schedule();
      }
    };
    inner.onClose = (reason) => {
      this.closedReason = reason;
      this.pump();
    };
  }

  /** Changes both directions at once; held messages keep the time they were given. */
  set settings(s: LinkSettings) {
    this.up.settings = { ...s };
    this.down.settings = { ...s };
    this.pump();
  }

  get settings(): LinkSettings {
    return { ...this.up.settings };
  }

  send(bytes: Uint8Array): void {
    if (this.done) return;
    eachFrame(bytes, (op, size) => this.observe('out', op, size));
    if (isClean(this.up.settings) && this.up.size === 0) this.inner.send(bytes);
    else {
      this.up.push(bytes.slice(), this.now(), bytes.length);
      this.schedule();
    }
  }

  close(): void {
    this.up.flush().forEach((b) => this.inner.send(b));
    this.inner.close();
  }

  bufferedAmount(): number {
    return this.inner.bufferedAmount?.() ?? 0;
  }

  private deliver(bytes: Uint8Array): void {
    eachFrame(bytes, (op, size) => this.observe('in', op, size));
    this.onBytes(bytes);
  }

  private pump(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.now();
    for (const b of this.up.take(now)) this.inner.send(b);
    for (const b of this.down.take(now)) this.deliver(b);
    if (this.closedReason !== undefined && this.down.size === 0 && !this.done) {
      this.done = true;
      this.up.flush();
      this.onClose(this.closedReason);
      return;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const next = Math.min(this.up.nextDue() ?? Infinity, this.down.nextDue() ?? Infinity);
    if (next === Infinity) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(0, next - this.now()),
    );
  }
}
