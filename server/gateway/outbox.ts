/**
 * The gateway's records for the zone hosts, gathered per zone: one ZoneInputs message per zone
 * and event-loop turn on wyvern.zone.<zone>.in (PACKET, JOIN, DETACH, RESYNC and BEHIND records
 * in the order they were written), sent once the turn's socket reads are done. Each message
 * is lent to the bus as written, never copied (MessageWriter).
 */
import type { Writer } from '../../shared/codec/writer.js';
import type { Bus } from '../cluster/bus.js';
import { MessageWriter } from '../cluster/message-writer.js';
import { Subjects } from '../cluster/subjects.js';
import { ZoneInputs } from '../cluster/wire.js';

/** A zone's input message is sent at once past this many bytes. */
const INPUTS_SEND_AT = 256 * 1024;

/** A zone's input message being filled this turn. */
interface Outgoing {
  readonly subject: ReturnType<typeof Subjects.zoneInput>;
  readonly w: MessageWriter;
  /** Where the records start (after the gateway id). */
  readonly head: number;
}

export class InputOutbox {
  private readonly outgoing = new Map<string, Outgoing>();
  private scheduled = false;
  private closed = false;

  constructor(
    /** This gateway's id, at the head of each message. */
    private readonly gateway: string,
    private readonly bus: Pick<Bus, 'publish'>,
  ) {}

  /** Sends what is queued; later records go nowhere. */
  close(): void {
    if (this.closed) return;
    this.sendInputs();
    this.closed = true;
  }

  /** The zone's input message of this turn, sent once the turn's I/O is done. */
  inputs(zone: string): Writer | undefined {
    if (this.closed) return undefined;
    let o = this.outgoing.get(zone);
    if (!o) {
      const w = new MessageWriter(1024);
      ZoneInputs.begin(w, { gateway: this.gateway });
      o = { subject: Subjects.zoneInput(zone), w, head: w.pos };
      this.outgoing.set(zone, o);
    }
    // Far below the bus's 1 MiB (a record is at most one packet): a busy turn goes in parts.
    if (o.w.pos > INPUTS_SEND_AT) o.w.publish(this.bus, o.subject, o.head);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the poll phase: every socket read this turn lands in one message per zone,
      // which reaches the zone host before its next tick timer.
      setImmediate(() => this.sendInputs());
    }
    return o.w;
  }

  private sendInputs(): void {
    this.scheduled = false;
    if (this.closed) return;
    for (const o of this.outgoing.values()) {
      if (o.w.pos === o.head) continue;
      o.w.publish(this.bus, o.subject, o.head);
    }
  }
}
