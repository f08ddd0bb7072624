/**
 * Sequenced streams over a bus that delivers at most once. NATS drops what is published while
 * nobody listens: after a nats-server restart every client reconnects on its own, and the
 * messages one flushes from its reconnect buffer reach the server before the other has
 * subscribed again, so they go nowhere, without an error. The two streams between the roles
 * (a gateway's zone inputs, per zone; a zone host's tick messages, per gateway) number their
 * messages 1, 2, ... so the receiver finds a gap, and the sender keeps what it sent for a
 * while (SentRing) so the receiver can have the missing ones sent again (InOrder). A stream
 * whose sender has nothing to say sends its newest seq again now and then (a marker), so a
 * loss at its end is found too.
 *
 * Each sending process numbers its streams under an epoch of its own (random at its start):
 * a stream heard under a new epoch is a new stream, counted from 1, so a receiver never takes
 * a restarted sender's messages for repeats, and a stream whose first messages were lost (a
 * zone's first tick message to a gateway, carrying the MOVED of a hand-off) asks for them.
 *
 * Only if what is missing is no longer kept (the outage outlasted the ring, or the receiver
 * came to a stream under way) is it given up: the sender says so at once (TicksGone,
 * InputsGone), and the receiver does what it did before (sends its sessions their state anew).
 */

/** A process's epoch for the streams it sends: random, never 0. */
export function newEpoch(): number {
  return 1 + Math.floor(Math.random() * 0xfffffffe);
}

/** A message's seq after `seq` (1 again after 2^32-1). */
export function nextSeq(seq: number): number {
  return seq >= 0xffffffff ? 1 : seq + 1;
}

export interface SentRingLimits {
  /** How long a message is kept (ms). */
  readonly keepMs: number;
  /** The most bytes kept: the oldest go first past it. */
  readonly maxBytes: number;
}

/** What a sender keeps by default: longer than NATS takes to come back from a restart. */
export const SENT_RING_LIMITS: SentRingLimits = { keepMs: 15_000, maxBytes: 16 * 1024 * 1024 };
/** What a sender keeps over a bus that loses nothing (in process): nothing. */
export const KEEP_NOTHING: SentRingLimits = { keepMs: 0, maxBytes: 0 };

/** What a sender over `bus` keeps of what it sent. */
export function keepLimits(bus: { readonly lossless?: boolean }): SentRingLimits {
  return bus.lossless ? KEEP_NOTHING : SENT_RING_LIMITS;
}

/** The messages a stream sent, newest last, kept for a time so they can be sent again. */
export class SentRing {
  private readonly seqs: number[] = [];
  private readonly messages: Uint8Array[] = [];
  private readonly at: number[] = [];
  private bytes = 0;
  /** The seq of the newest message kept (0: none yet), kept or trimmed since. */
  private newest = 0;

  constructor(
    private readonly clock: () => number,
    private readonly limits: SentRingLimits = SENT_RING_LIMITS,
  ) {}

  /** Whether it keeps anything (not over a bus that loses nothing): else a message need not be copied for it. */
  get keeps(): boolean {
    return this.limits.maxBytes > 0;
  }

  /** Keeps `message` (the bytes published, never written to again) as `seq`. */
  keep(seq: number, message: Uint8Array): void {
    const now = this.clock();
    // A new count (a wrap) makes the kept ones unreachable by seq.
    if (seq === 1) this.clear();
    this.newest = seq;
    this.seqs.push(seq);
    this.messages.push(message);
    this.at.push(now);
    this.bytes += message.length;
    this.trim(now);
  }

  /**
   * The kept messages from seq `from` on, in order; undefined when `from` is no longer kept
   * (or was never sent), since a part of what is asked cannot be given.
   */
  from(from: number): Uint8Array[] | undefined {
    // Asked for what comes after the newest (a receiver making sure it missed nothing): nothing.
    if (this.newest > 0 && from === nextSeq(this.newest)) return [];
    this.trim(this.clock());
    const i = this.seqs.indexOf(from);
    return i < 0 ? undefined : this.messages.slice(i);
  }

  /** How many messages are kept now. */
  get size(): number {
    this.trim(this.clock());
    return this.seqs.length;
  }

  clear(): void {
    this.seqs.length = this.messages.length = this.at.length = 0;
    this.bytes = 0;
  }

  private trim(now: number): void {
    let drop = 0;
    let bytes = this.bytes;
    while (
      drop < this.seqs.length &&
      (now - this.at[drop]! > this.limits.keepMs || bytes > this.limits.maxBytes)
    ) {
      bytes -= this.messages[drop]!.length;
      drop++;
    }
    if (drop === 0) return;
    this.seqs.splice(0, drop);
    this.messages.splice(0, drop);
    this.at.splice(0, drop);
    this.bytes = bytes;
  }
}

export interface InOrderOptions<T> {
  /** Handles one message; called in seq order, each seq once. It must not throw. */
  deliver(message: T): void;
  /** Asks the sender to send its messages from `from` on again. */
  ask(from: number): void;
  /** Messages `from` up to `to` (not included) are given up: they are not coming. */
  gaveUp(from: number, to: number): void;
  /** How often a gap is asked for again while it stays open (ms). Default 250. */
  askEveryMs?: number;
  /** How long a gap waits before it is given up (ms). Default 2000. */
  waitMs?: number;
  /** How many messages after a gap are held, at most, before it is given up. Default 2000. */
  maxHeld?: number;
  /**
   * Whether the stream is this receiver's from its first message (the sender names it): a first
   * message past seq 1 opens a gap from 1. Otherwise (a stream already under way when this
   * receiver came to it) the first seq heard is where it starts. Default true.
   */
  fromOne?: boolean;
}

/** A count this far on that hears seq 1 has wrapped (2^32-1 is years of messages away). */
const WRAP_FROM = 0xff000000;

/**
 * One sequenced stream's receiving end: messages are handed on in seq order; a repeat (a
 * message sent again that came the first time after all) is dropped; a gap holds what comes
 * after it and asks the sender for the missing ones, again every askEveryMs, until they come,
 * the sender says they are gone (skipTo), or waitMs has passed (then they are given up and
 * what was held goes on). A marker (the sender's newest seq again, with nothing in it) is given
 * to `receive` as undefined: it only says how far the sender has got.
 *
 * A stream counts from 1 (fromOne): a first message numbered past it opens a gap from 1. Seq 1 near the
 * top of the count starts it afresh (the sender wrapped); anywhere else it is a repeat (a
 * message sent again after the gap it filled had closed).
 */
export class InOrder<T> {
  /** The seq of the last message handed on (0: none yet). */
  private last = 0;
  private readonly held = new Map<number, T>();
  /** The newest seq heard of (a message's, held, or a marker's). */
  private newest = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private gapSince = 0;
  private readonly askEveryMs: number;
  private readonly waitMs: number;
  private readonly maxHeld: number;
  /** Whether a message (or marker) has been heard since the stream started (or was reset). */
  private started = false;
  /** Gaps filled by messages sent again, and gaps given up. */
  filled = 0;
  givenUp = 0;

  constructor(
    private readonly opts: InOrderOptions<T>,
    private readonly clock: () => number = Date.now,
  ) {
    this.askEveryMs = opts.askEveryMs ?? 250;
    this.waitMs = opts.waitMs ?? 2_000;
    this.maxHeld = opts.maxHeld ?? 2_000;
  }

  /** Whether a gap is open (messages after it are held). */
  get waiting(): boolean {
    return this.timer !== undefined;
  }

  /** Whether a message numbered `seq` would be handed on at once (else it is held, or dropped). */
  inOrder(seq: number): boolean {
    if (seq === 1 && this.last >= WRAP_FROM) return true;
    return !this.waiting && seq === nextSeq(this.last);
  }

  /** The seq of the last message handed on (0 before the first). */
  get lastSeq(): number {
    return this.last;
  }

  /** A message (`message` undefined: a marker) numbered `seq`. */
  receive(seq: number, message: T | undefined): void {
    if (seq === 1 && this.last >= WRAP_FROM) this.reset();
    if (!this.started) {
      this.started = true;
      // Come to a stream under way: it starts here (a marker says where it has got to).
      if (this.opts.fromOne === false) this.last = this.newest = message === undefined ? seq : seq - 1;
    }
    if (seq <= this.last) return;
    if (seq > this.newest) this.newest = seq;
    if (message !== undefined) this.held.set(seq, message);
    this.settle();
  }

  /**
   * The sender no longer has the messages before `before`: whatever of them has not come is
   * given up, and what was held after them goes on.
   */
  skipTo(before: number): void {
    if (before - 1 <= this.last) return;
    if (before - 1 > this.newest) this.newest = before - 1;
    this.givenUp++;
    this.handOnUpTo(before - 1);
    this.settle();
  }

  /**
   * Asks the sender for anything after the last message handed on (after a reconnect: what it
   * sent while this end was not listening was dropped, and only a later message would show it).
   */
  probe(): void {
    if (this.newest > 0 && !this.waiting) this.opts.ask(nextSeq(this.last));
  }

  /** Forgets the stream (its sender is gone): the next message starts it afresh, from 1. */
  reset(): void {
    this.started = false;
    this.last = 0;
    this.held.clear();
    this.newest = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Hands on what is in order; opens a gap, or gives one up, by what is left. */
  private settle(): void {
    this.drain();
    if (this.newest <= this.last) return;
    if (!this.waiting) this.openGap();
    else if (this.held.size > this.maxHeld) this.giveUp();
  }

  private openGap(): void {
    this.gapSince = this.clock();
    this.opts.ask(nextSeq(this.last));
    this.schedule();
  }

  private schedule(): void {
    const timer = setTimeout(() => this.onTimer(), this.askEveryMs);
    timer.unref?.();
    this.timer = timer;
  }

  private onTimer(): void {
    this.timer = undefined;
    if (this.newest <= this.last) return;
    if (this.clock() - this.gapSince >= this.waitMs) return this.giveUp();
    this.opts.ask(nextSeq(this.last));
    this.schedule();
  }

  /** Hands on what is held from the last seq on, while it is in sequence; closes a filled gap. */
  private drain(): void {
    for (let next = nextSeq(this.last); this.held.has(next); next = nextSeq(next)) {
      const message = this.held.get(next)!;
      this.held.delete(next);
      this.last = next;
      this.opts.deliver(message);
    }
    if (this.newest <= this.last && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.filled++;
    }
  }

  /** The missing messages are not coming: what is held goes on after them. */
  private giveUp(): void {
    this.givenUp++;
    this.handOnUpTo(this.newest);
    this.held.clear();
  }

  /**
   * Hands on what is held up to seq `to`, each missing run reported given up before the
   * message after it; the gap's timer stops (a gap left after `to` opens anew).
   */
  private handOnUpTo(to: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // By what is held, not seq by seq: a stream first heard far into its count skips far.
    const seqs = [...this.held.keys()].filter((seq) => seq <= to).sort((a, b) => a - b);
    let expected = nextSeq(this.last);
    for (const seq of seqs) {
      if (seq !== expected) this.opts.gaveUp(expected, seq);
      const message = this.held.get(seq)!;
      this.held.delete(seq);
      this.last = seq;
      this.opts.deliver(message);
      expected = nextSeq(seq);
    }
    if (expected <= to) this.opts.gaveUp(expected, nextSeq(to));
    this.last = to;
  }
}
