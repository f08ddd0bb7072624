/**
 * The link lab: a worse network on demand, between the page and its WebSocket, in both
 * directions. Each message waits `latencyMs` plus a random 0..`jitterMs`.
 *
 * WebSocket runs over TCP, so the link stays in order and never loses a message: a lost
 * segment is sent again after a retransmission timeout and everything behind it waits
 * (head-of-line blocking). The lab models exactly that: `lossPercent` is the chance that a
 * message is lost once and arrives a retransmission timeout later, and no message ever
 * overtakes one sent before it. Dropping or reordering messages would test a protocol this
 * game does not speak.
 *
 * `bandwidthKbps` caps the rate each way (0: no cap): a message takes its size in bits over
 * the cap to go onto the wire, behind the messages before it, so a burst queues up.
 *
 * Time and randomness are arguments, so tests drive it with a fake clock and a seeded rng.
 */

export interface LinkSettings {
  latencyMs: number;
  jitterMs: number;
  lossPercent: number;
  /** Kilobits per second each way; 0 for no cap. */
  bandwidthKbps: number;
}

export const CLEAN_LINK: LinkSettings = { latencyMs: 0, jitterMs: 0, lossPercent: 0, bandwidthKbps: 0 };

/** TCP's minimum retransmission timeout on Linux; the lab adds one round trip on top. */
export const MIN_RTO_MS = 200;

export function isClean(s: LinkSettings): boolean {
  return s.latencyMs <= 0 && s.jitterMs <= 0 && s.lossPercent <= 0 && !(s.bandwidthKbps > 0);
}

interface Held<T> {
  due: number;
  item: T;
}

export class DelayQueue<T> {
  private readonly held: Held<T>[] = [];
  private lastDue = -Infinity;
  /** When the wire is free for the next message (with a bandwidth cap). */
  private wireFree = -Infinity;
  sent = 0;
  lost = 0;

  constructor(
    public settings: LinkSettings,
    private readonly rng: () => number = Math.random,
  ) {}

  /** Queues an item of `bytes` at time `now`; returns when it will be delivered. */
  push(item: T, now: number, bytes = 0): number {
    const s = this.settings;
    let sent = now;
    if (s.bandwidthKbps > 0) {
      // Kilobits per second are bits per millisecond.
      sent = Math.max(now, this.wireFree) + (bytes * 8) / s.bandwidthKbps;
      this.wireFree = sent;
    }
    let delay = sent - now + Math.max(0, s.latencyMs) + Math.max(0, s.jitterMs) * this.rng();
    if (s.lossPercent > 0 && this.rng() * 100 < s.lossPercent) {
      this.lost++;
      delay += MIN_RTO_MS + 2 * Math.max(0, s.latencyMs);
    }
    // In order: never before the message sent ahead of it.
    const due = Math.max(now + delay, this.lastDue);
    this.lastDue = due;
    this.held.push({ due, item });
    this.sent++;
    return due;
  }

  /** Items due at or before `now`, in the order they were pushed. */
  take(now: number): T[] {
    let n = 0;
    while (n < this.held.length && (this.held[n] as Held<T>).due <= now) n++;
    if (n === 0) return [];
    return this.held.splice(0, n).map((h) => h.item);
  }

  /** When the next item is due, or undefined when empty. */
  nextDue(): number | undefined {
    return this.held[0]?.due;
  }

  get size(): number {
    return this.held.length;
  }

  /** Everything still held, at once (when the lab is switched off). */
  flush(): T[] {
    this.lastDue = -Infinity;
    this.wireFree = -Infinity;
    return this.held.splice(0, this.held.length).map((h) => h.item);
  }
}
