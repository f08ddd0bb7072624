/**
 * The gateway's records for the zone hosts, gathered per zone: one ZoneInputs message per zone
 * and event-loop turn on wyvern.zone.<zone>.in (PACKET, JOIN, DETACH, RESYNC and BEHIND records
 * in the order they were written), sent once the turn's socket reads are done.
 *
 * Each zone's messages are numbered 1, 2, ... (ZoneInputs' `seq`) and kept a while after they
 * are sent (server/cluster/sequenced.ts): NATS drops what is published while the host is not
 * subscribed (as after a nats-server restart), and a host that finds one missing asks for it
 * again (RESENDINPUTS) and gets the very bytes. A stream quiet for a second says its newest seq
 * again (a marker), so a loss at its end is found as well. A message is copied once, into what
 * is kept, and that copy is what the bus is given; over a bus that loses nothing (in process)
 * nothing is kept, and a message is lent to the bus as written (MessageWriter).
 */
import { Writer } from '../../shared/codec/writer.js';
import type { Bus } from '../cluster/bus.js';
import { MessageWriter } from '../cluster/message-writer.js';
import { keepLimits, newEpoch, nextSeq, SentRing } from '../cluster/sequenced.js';
import { Subjects } from '../cluster/subjects.js';
import { InputsGone, ZoneInputs } from '../cluster/wire.js';

/** A zone's input message is sent at once past this many bytes. */
const INPUTS_SEND_AT = 256 * 1024;
/** A stream quiet this long says its newest seq again. */
export const INPUT_MARKER_MS = 1_000;
/**
 * How long who said a line in which message is remembered: far past the messages themselves,
 * so a sayer whose line went in one given up is told (see resend).
 */
const LINES_KEEP_MS = 120_000;

/** A line said: the seq of the message it went in, its sayer, and when. */
interface Line {
  readonly seq: number;
  readonly session: number;
  readonly at: number;
}

/** One zone's stream of input messages. */
interface Stream {
  readonly subject: ReturnType<typeof Subjects.zoneInput>;
  readonly w: MessageWriter;
  /** Where the records start (after the head), while a message is open. */
  head: number;
  open: boolean;
  /** The seq of the last message sent. */
  seq: number;
  /** The epoch of the zone's host its messages name (0: not known yet). */
  to: number;
  readonly sent: SentRing;
  lastSentAt: number;
  /** The sayers of lines in the open message, then in each message sent (oldest first). */
  saying: number[];
  readonly lines: Line[];
}

export class InputOutbox {
  private readonly streams = new Map<string, Stream>();
  private scheduled = false;
  private closed = false;
  private readonly markerTimer: ReturnType<typeof setInterval>;

  constructor(
    /** This gateway's id, at the head of each message. */
    private readonly gateway: string,
    private readonly bus: Pick<Bus, 'publish' | 'stats' | 'lossless'>,
    private readonly clock: () => number = Date.now,
    /** This gateway's epoch: its streams are counted under it (server/cluster/sequenced.ts). */
    readonly epoch = newEpoch(),
    /** The epoch of the host running the zone, as this gateway last heard it (0: not known). */
    private readonly receiverOf: (zone: string) => number = () => 0,
    /** Lines these sessions said were in messages given up: each sayer is told its line was not heard. */
    private readonly linesLost: (sessions: readonly number[]) => void = () => {},
  ) {
    this.markerTimer = setInterval(() => this.markers(), INPUT_MARKER_MS);
    this.markerTimer.unref?.();
  }

  /** Sends what is queued; later records go nowhere. */
  close(): void {
    if (this.closed) return;
    this.sendInputs();
    this.closed = true;
    clearInterval(this.markerTimer);
  }

  /**
   * The zone's input message of this turn, sent once the turn's I/O is done; `sayer`: the
   * session whose line (ChatSend) goes in it.
   */
  inputs(zone: string, sayer?: number): Writer | undefined {
    if (this.closed) return undefined;
    const s = this.stream(zone);
    // Far below the bus's 1 MiB (a record is at most one packet): a busy turn goes in parts.
    if (s.open && s.w.pos > INPUTS_SEND_AT) this.send(s);
    if (!s.open) {
      this.address(s, zone);
      ZoneInputs.begin(s.w, { gateway: this.gateway, epoch: this.epoch, to: s.to, seq: nextSeq(s.seq) });
      s.head = s.w.pos;
      s.open = true;
    }
    if (sayer !== undefined) s.saying.push(sayer);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the poll phase: every socket read this turn lands in one message per zone,
      // which reaches the zone host before its next tick timer.
      setImmediate(() => this.sendInputs());
    }
    return s.w;
  }

  /**
   * The zone's host missed this gateway's messages for it from `from` on: they go again, in
   * order, as they were. False when they are no longer kept: the host is told to give them
   * up (INPUTSGONE).
   */
  resend(zone: string, from: number): boolean {
    const s = this.stream(zone);
    const messages = s.sent.from(from);
    if (!messages) {
      const before = nextSeq(s.seq);
      const w = new Writer(this.gateway.length + 24);
      ZoneInputs.begin(w, { gateway: this.gateway, epoch: this.epoch, to: s.to, seq: 0 });
      InputsGone.write(w, { session: 0, before });
      this.bus.publish(s.subject, w.finish());
      this.tellSayers(s, from, before);
      return false;
    }
    for (const m of messages) this.bus.publish(s.subject, m);
    return true;
  }

  private stream(zone: string): Stream {
    let s = this.streams.get(zone);
    if (!s) {
      s = {
        subject: Subjects.zoneInput(zone),
        w: new MessageWriter(1024),
        head: 0,
        open: false,
        seq: 0,
        to: 0,
        sent: new SentRing(this.clock, keepLimits(this.bus)),
        lastSentAt: 0,
        saying: [],
        lines: [],
      };
      this.streams.set(zone, s);
    }
    return s;
  }

  /**
   * Names the zone's host in the stream; another host than the one named (the zone failed
   * over, or its host restarted) gets a count of its own from 1, with nothing kept of what the
   * other had: it must never be sent again what another host took.
   */
  private address(s: Stream, zone: string): void {
    const to = this.receiverOf(zone);
    if (to === 0 || to === s.to) return;
    if (s.to !== 0) {
      s.seq = 0;
      s.sent.clear();
      s.lines.length = 0;
    }
    s.to = to;
  }

  private sendInputs(): void {
    this.scheduled = false;
    if (this.closed) return;
    for (const s of this.streams.values()) if (s.open && s.w.pos > s.head) this.send(s);
  }

  private send(s: Stream): void {
    s.open = false;
    s.seq = nextSeq(s.seq);
    const now = (s.lastSentAt = this.clock());
    if (s.saying.length > 0 || s.lines.length > 0) this.noteLines(s, now);
    // Over a bus that loses nothing, nothing is kept: the message is lent as written.
    if (!s.sent.keeps) return s.w.publish(this.bus, s.subject);
    const message = s.w.finish();
    s.w.pos = 0;
    s.sent.keep(s.seq, message);
    this.bus.publish(s.subject, message);
  }

  /** Who said a line in the message just sent; those remembered too long are forgotten. */
  private noteLines(s: Stream, now: number): void {
    for (const session of s.saying) s.lines.push({ seq: s.seq, session, at: now });
    s.saying.length = 0;
    let old = 0;
    while (old < s.lines.length && now - s.lines[old]!.at > LINES_KEEP_MS) old++;
    if (old > 0) s.lines.splice(0, old);
  }

  /** The sayers of lines in messages `from` up to `before` (not included), given up: each is told. */
  private tellSayers(s: Stream, from: number, before: number): void {
    const lost = s.lines.filter((l) => l.seq >= from && l.seq < before);
    if (lost.length === 0) return;
    s.lines.splice(0, s.lines.length, ...s.lines.filter((l) => !lost.includes(l)));
    this.linesLost(lost.map((l) => l.session));
  }

  /**
   * Each stream says its newest seq now (the bus just came back: what was sent while the host
   * was not listening is found at once, not at the next message or marker).
   */
  markNow(): void {
    this.markers(true);
  }

  /** Each quiet stream with messages still kept says its newest seq (while the bus is up). */
  private markers(all = false): void {
    if (this.closed || !this.bus.stats().connected) return;
    const now = this.clock();
    for (const s of this.streams.values()) {
      if (s.seq === 0 || s.sent.size === 0) continue;
      if (!all && now - s.lastSentAt < INPUT_MARKER_MS) continue;
      const w = new Writer(this.gateway.length + 8);
      ZoneInputs.begin(w, { gateway: this.gateway, epoch: this.epoch, to: s.to, seq: s.seq });
      s.lastSentAt = now;
      this.bus.publish(s.subject, w.finish());
    }
  }
}
