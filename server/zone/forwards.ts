/**
 * Sessions this host handed to another host: their gateways go on sending their inputs here
 * until they hear MOVED, so for a while (FORWARD_MS) those inputs are sent on to the host that
 * took the player, as their gateway sent them. A detach for a session whose connection
 * dropped while its hand-off was out goes the same way.
 */
import { Writer } from '../../shared/codec/writer.js';
import type { Bus } from '../cluster/bus.js';
import type { InnerRecord, RecordIn, RecordOut } from '../cluster/inner/define.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import { Detach, MovedOn, Packet, ZoneInputs } from '../cluster/wire.js';

/** How long inputs for a session handed to another host are sent on after it. */
const FORWARD_MS = 10_000;

export class Forwards {
  /** Sessions handed to another host, by "gateway\nsession": where their late inputs go. */
  private readonly forwards = new Map<string, { zone: string; until: number }>();

  constructor(
    private readonly bus: Bus,
    private readonly clock: () => number,
  ) {}

  get size(): number {
    return this.forwards.size;
  }

  /** The session's inputs go on to the host of `zone` from now on, for a while. */
  add(gateway: string, session: number, zone: string): void {
    this.forwards.set(`${gateway}\n${session}`, { zone, until: this.clock() + FORWARD_MS });
  }

  /** The session is back on this host: its inputs are its own again. */
  forget(gateway: string, session: number): void {
    this.forwards.delete(`${gateway}\n${session}`);
  }

  /** An input for a session handed to another host: on to that host, as its gateway sent it. */
  forward<R extends InnerRecord>(gateway: string, def: R, record: RecordOut<R> & { session: number }): void {
    const key = `${gateway}\n${record.session}`;
    const to = this.forwards.get(key);
    if (!to) return;
    if (to.until < this.clock()) {
      this.forwards.delete(key);
      return;
    }
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway, epoch: 0, to: 0, seq: 0 });
    // What a record reads is what it writes (its bytes as views into the message).
    def.write(w, record as RecordIn<R>);
    this.bus.publish(Subjects.zoneInput(zoneId(to.zone)), w.finish());
  }

  /**
   * Zone packets that came for a session while its hand-off was asked: on to the host of
   * `zone` that took it, in their order, in one message (before any that come later), and its
   * gateway's MOVEDON after them if that came too (`movedOn`: the session).
   */
  sendOn(
    gateway: string,
    zone: string,
    packets: readonly RecordOut<typeof Packet>[],
    movedOn?: number,
  ): void {
    const w = new Writer(64 + packets.reduce((n, r) => n + r.payload.length + 24, 0));
    ZoneInputs.begin(w, { gateway, epoch: 0, to: 0, seq: 0 });
    for (const record of packets) Packet.write(w, record);
    if (movedOn !== undefined) MovedOn.write(w, { session: movedOn });
    this.bus.publish(Subjects.zoneInput(zoneId(zone)), w.finish());
  }

  /** Its connection dropped while the request was out: the next host lets it linger. */
  detach(gateway: string, session: number, zone: string): void {
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway, epoch: 0, to: 0, seq: 0 });
    Detach.write(w, { session });
    this.bus.publish(Subjects.zoneInput(zoneId(zone)), w.finish());
  }
}
