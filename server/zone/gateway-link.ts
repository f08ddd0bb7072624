/**
 * A zone host's side of one gateway: the outputs of that gateway's sessions and the one
 * message a tick that carries them (server/cluster/wire.ts has the layout; a tick over the
 * bus's 1 MiB limit goes as several, in order).
 *
 * The outbox writes each session's frames into that session's SessionOutput, exactly as it
 * would into a Connection's buffer; at the end of the tick `publish` copies every session's
 * bytes into one batch, behind the JOINED records and before the LEFT ones, and sends it on
 * `wyvern.gw.<gateway>.tick` as it was written: the batch's buffer itself is lent to the bus
 * (MessageWriter), and written again only once the bus has given it back. The gateway appends
 * each session's bytes to its connection and flushes once. Sockets are the gateway's: the
 * soft-limit verdict ("behind") arrives from it in BEHIND records and is what `behind()`
 * answers; the hard limit is applied there when the bytes are appended. A zone packet whose
 * payload does not decode here is answered REFUSED, outside the tick (`refuse`).
 */
import type { DecodeError } from '../../shared/codec/errors.js';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { Writer } from '../../shared/codec/writer.js';
import { DEFAULT_MAX_PAYLOAD, type Bus } from '../cluster/bus.js';
import { MessageWriter } from '../cluster/message-writer.js';
import { keepLimits, SentRing } from '../cluster/sequenced.js';
import { Subjects } from '../cluster/subjects.js';
import {
  Bytes,
  GatewayBatch,
  Joined,
  Left,
  Moved,
  nextSeq,
  Refused,
  TicksGone,
  type LeftReason,
} from '../cluster/wire.js';
import { sendObserver } from '../metrics/index.js';
import type { OutboxSink } from '../outbox/outbox.js';

/** Initial capacity of a session's output; it grows as a spawn burst needs. */
const OUTPUT_INITIAL = 512;
/** An output grown past this is remade small after a tick that used under a quarter of it. */
const OUTPUT_SHRINK_ABOVE = 16 * 1024;

/** One session's bytes for this tick, held until the gateway's batch is assembled. */
export class SessionOutput implements OutboxSink {
  readonly out = new Writer(OUTPUT_INITIAL);
  /** The gateway's last word on this session's send buffer. */
  behindNow = false;
  closed = false;
  private queued = false;

  constructor(
    private readonly link: GatewayLink,
    readonly session: number,
  ) {}

  behind(): boolean {
    return this.behindNow;
  }

  skipped(opcode: number): void {
    sendObserver.dropped(opcode);
  }

  commit(): boolean {
    if (this.closed) {
      this.out.pos = 0;
      return false;
    }
    if (this.out.pos > 0 && !this.queued) {
      this.queued = true;
      this.link.queue(this);
    }
    return true;
  }

  /** Called by the link once the bytes are in its batch. */
  taken(): void {
    this.queued = false;
    const w = this.out;
    const used = w.pos;
    w.pos = 0;
    if (w.buf.length > OUTPUT_SHRINK_ABOVE && used * 4 < w.buf.length) {
      w.buf = new Uint8Array(Math.max(OUTPUT_INITIAL, used * 2));
      w.view = new DataView(w.buf.buffer);
    }
  }
}

/** The longest REFUSED reason sent, in characters (the wire takes 1024 bytes). */
const REASON_MAX = 300;

/** A record's kind, session and length varints: room kept beside its bytes. */
const RECORD_HEAD = 11;
/** After this long without a tick message, the newest seq is sent again (a marker: see sequenced.ts). */
export const MARKER_MS = 1_000;

export class GatewayLink {
  private readonly tickSubject;
  private readonly directSubject;
  /** The open message; each is lent to the bus as written, never copied (MessageWriter). */
  private readonly batch = new MessageWriter(16 * 1024);
  private readonly outputs: SessionOutput[] = [];
  private readonly joined: number[] = [];
  private readonly left: [session: number, reason: LeftReason][] = [];
  private readonly movedTo: [session: number, zone: string][] = [];
  /** Sessions whose zone input was refused (see refuse). */
  private readonly refusedSessions = new Set<number>();

  /**
   * `maxPayload`: the most one message may carry (the bus's limit). A tick that holds more
   * (a crowd entering at once spawns everything it sees) goes as several messages in order,
   * each session's bytes cut between whole frames.
   */
  /** The seq of the last tick message sent (wire.ts: the gateway finds a lost one by it). */
  private seq = 0;
  private readonly bytesRecord = {
    session: 0,
    frames: { buf: new Uint8Array(0) as Uint8Array, start: 0, end: 0 },
  };
  /** Where the current message's records start (after its host and seq). */
  private head = 0;
  /** The tick messages sent lately (copies), for a gateway that missed some (resend). */
  private readonly sent: SentRing;
  private lastSentAt = 0;
  /**
   * The epoch of the gateway instance this link talks to, as last heard (0: not yet): its
   * messages name it, and a new one (the gateway restarted) starts the count afresh.
   */
  to = 0;

  constructor(
    readonly gateway: string,
    private readonly bus: Bus,
    /** The zone host's id, which the gateway keeps each host's seq by. */
    private readonly host: string,
    private readonly maxPayload = DEFAULT_MAX_PAYLOAD,
    private readonly clock: () => number = Date.now,
    /** This host's epoch: its tick messages are counted under it (server/cluster/sequenced.ts). */
    private readonly epoch = 1,
  ) {
    this.tickSubject = Subjects.gatewayTick(gateway);
    this.directSubject = Subjects.gatewayDirect(gateway);
    this.sent = new SentRing(clock, keepLimits(bus));
  }

  /**
   * The gateway said its epoch (the head of its zone inputs, or of a hand-off in its name): a
   * new instance of it gets a count of its own from 1, with nothing kept of the old one's.
   */
  heard(gatewayEpoch: number): void {
    if (gatewayEpoch === 0 || gatewayEpoch === this.to) return;
    if (this.to !== 0) {
      this.seq = 0;
      this.sent.clear();
      this.lastSentAt = 0;
    }
    this.to = gatewayEpoch;
  }

  output(session: number): SessionOutput {
    return new SessionOutput(this, session);
  }

  queue(output: SessionOutput): void {
    this.outputs.push(output);
  }

  /** The session is in the world as `entity`: told before this tick's bytes. */
  entered(session: number, entity: number, character: number): void {
    this.joined.push(session, entity, character);
  }

  /** The session's character walked into `zone` of this host: told before this tick's bytes. */
  moved(session: number, zone: string): void {
    this.movedTo.push([session, zone]);
  }

  /** The session's character is gone (or never came): told after this tick's bytes. */
  exited(session: number, reason: LeftReason): void {
    this.left.push([session, reason]);
  }

  /** Sends this tick's batch (one message unless it is over the bus's limit), if there is anything in it. */
  publish(): void {
    const outputs = this.outputs;
    if (
      outputs.length === 0 &&
      this.joined.length === 0 &&
      this.left.length === 0 &&
      this.movedTo.length === 0
    )
      return this.marker();
    const w = this.batch;
    this.start();
    const joined = this.joined;
    for (let i = 0; i < joined.length; i += 3) {
      this.room(RECORD_HEAD * 2);
      Joined.write(w, { session: joined[i]!, entity: joined[i + 1]!, character: joined[i + 2]! });
    }
    for (const [session, zone] of this.movedTo) {
      this.room(RECORD_HEAD + zone.length * 3 + 1);
      Moved.write(w, { session, zone });
    }
    this.movedTo.length = 0;
    for (const o of outputs) {
      // Closed after its last commit (it left this tick) still gets what it was given.
      if (o.out.pos > 0) this.bytes(o.session, o.out.buf, o.out.pos);
      o.taken();
    }
    const left = this.left;
    for (const [session, reason] of left) {
      this.room(RECORD_HEAD);
      Left.write(w, { session, reason });
    }
    outputs.length = joined.length = left.length = 0;
    // Never empty: a message is opened only for a record that follows at once.
    this.sendTick();
  }

  /**
   * The gateway missed this link's tick messages from `from` on: they go again, in order, as
   * they were. False when they are no longer kept: the gateway is told to give them up.
   */
  resend(from: number): boolean {
    const messages = this.sent.from(from);
    if (!messages) {
      this.gone();
      return false;
    }
    for (const m of messages) this.bus.publish(this.tickSubject, m);
    return true;
  }

  /** Tells the gateway its tick messages up to the newest are no longer kept: it gives them up at once. */
  private gone(): void {
    const w = new Writer(this.host.length + 24);
    GatewayBatch.begin(w, { host: this.host, epoch: this.epoch, to: this.to, seq: 0 });
    TicksGone.write(w, { session: 0, before: nextSeq(this.seq) });
    this.bus.publish(this.directSubject, w.peek());
  }

  /** Lends the open message to the bus, keeping a copy of it a while to send again. */
  private sendTick(): void {
    const w = this.batch;
    if (this.sent.keeps) this.sent.keep(this.seq, w.peek().slice());
    this.lastSentAt = this.clock();
    w.publish(this.bus, this.tickSubject);
  }

  /** Says the newest seq now (the bus just came back: a gateway that missed some finds it at once). */
  markNow(): void {
    this.marker(true);
  }

  /**
   * A quiet link says its newest seq again now and then, while what it sent is kept: a loss
   * at the end of what it sent is found by it (a gateway finds a lost message only by a later one).
   */
  private marker(now = false): void {
    if (this.seq === 0 || this.sent.size === 0) return;
    if (!now && this.clock() - this.lastSentAt < MARKER_MS) return;
    const w = new Writer(this.host.length + 8);
    GatewayBatch.begin(w, { host: this.host, epoch: this.epoch, to: this.to, seq: this.seq });
    this.lastSentAt = this.clock();
    this.bus.publish(this.tickSubject, w.peek());
  }

  /**
   * A zone packet of the session's did not decode here: the gateway hears it at once (REFUSED,
   * outside the tick) and cuts the connection; none of the session's later packets is applied
   * (see refused) until it enters again or is detached.
   */
  refuse(session: number, opcode: number, err: DecodeError): void {
    if (this.refusedSessions.has(session)) return;
    this.refusedSessions.add(session);
    // A decode error's reason names a field and a length: short, but never trusted to be.
    const reason = err.message.length > REASON_MAX ? err.message.slice(0, REASON_MAX) : err.message;
    const w = new Writer(64 + this.host.length + reason.length * 3);
    GatewayBatch.begin(w, { host: this.host, epoch: this.epoch, to: this.to, seq: 0 });
    Refused.write(w, { session, opcode, code: err.code, reason });
    // The writer is this message's alone: its bytes go as they are.
    this.bus.publish(this.directSubject, w.peek());
  }

  /** Whether the session's input was refused (see refuse). */
  refused(session: number): boolean {
    return this.refusedSessions.has(session);
  }

  /** Whether any session's is: one check per input in the usual case. */
  get refusedAny(): boolean {
    return this.refusedSessions.size > 0;
  }

  /** The session starts afresh (a JOIN) or is gone (a DETACH); without one, every session (the gateway is gone). */
  forgive(session?: number): void {
    if (session === undefined) this.refusedSessions.clear();
    else this.refusedSessions.delete(session);
  }

  /** Frames for one session now, outside the tick (a whisper). */
  direct(session: number, frames: Uint8Array): void {
    const w = new Writer(frames.length + RECORD_HEAD + this.host.length + 8);
    GatewayBatch.begin(w, { host: this.host, epoch: this.epoch, to: this.to, seq: 0 });
    Bytes.write(w, { session, frames });
    // The writer is this message's alone: its bytes go as they are.
    this.bus.publish(this.directSubject, w.peek());
  }

  /** A session's bytes [0, end) of `buf`: one record, or several cut between frames where the message fills. */
  private bytes(session: number, buf: Uint8Array, end: number): void {
    const w = this.batch;
    let start = 0;
    while (start < end) {
      const room = this.maxPayload - w.pos - RECORD_HEAD;
      if (end - start <= room) {
        this.writeBytes(session, buf, start, end);
        return;
      }
      let cut = start;
      for (;;) {
        const size = buf[cut]! | (buf[cut + 1]! << 8);
        if (size < HEADER_SIZE) throw new Error(`a frame of ${size} bytes in session ${session}'s output`);
        if (cut + size - start > room) break;
        cut += size;
      }
      if (cut === start && w.pos === this.head)
        throw new Error(`a frame over the bus's limit of ${this.maxPayload}`);
      if (cut > start) this.writeBytes(session, buf, start, cut);
      start = cut;
      // A frame is at most 64 KiB: it fits the next message whole.
      this.send();
    }
  }

  /** A BYTES record of buf[start, end) into the open message, from one value kept for it (a tick writes one per session). */
  private writeBytes(session: number, buf: Uint8Array, start: number, end: number): void {
    const record = this.bytesRecord;
    record.session = session;
    record.frames.buf = buf;
    record.frames.start = start;
    record.frames.end = end;
    Bytes.write(this.batch, record);
  }

  /** Starts a new message unless `need` more bytes fit the current one. */
  private room(need: number): void {
    if (this.batch.pos + need > this.maxPayload) this.send();
  }

  /** Opens the next tick message. */
  private start(): void {
    this.seq = nextSeq(this.seq);
    GatewayBatch.begin(this.batch, { host: this.host, epoch: this.epoch, to: this.to, seq: this.seq });
    this.head = this.batch.pos;
  }

  /** Sends the open message and opens the next, unless nothing was written since it opened. */
  private send(): void {
    const w = this.batch;
    if (w.pos === this.head) return;
    this.sendTick();
    this.start();
  }
}
