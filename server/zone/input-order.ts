/**
 * A zone host's zone inputs put back in order: each gateway numbers its input messages per
 * zone (ZoneInputs' `seq`), and a message lost on the bus (NATS drops what is published while
 * the host is not subscribed, as after a nats-server restart) is asked for again from the
 * gateway, which keeps what it sent for a while (server/cluster/sequenced.ts). What comes after
 * a gap waits for it, so a move, a stop or a line said is never applied out of its order nor
 * dropped without a word: given up (the gateway no longer has it), the gateway's sessions in
 * the zone are sent their state anew, so their clients stand where the host has them.
 */
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';
import type { Bus } from '../cluster/bus.js';
import { InOrder } from '../cluster/sequenced.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import { GatewayBatch, ResendInputs, ZoneInputs } from '../cluster/wire.js';
import type { Logger } from '../log.js';

export interface InputOrderOptions {
  readonly bus: Bus;
  /** This zone host's id (the head of what it sends a gateway). */
  readonly hostId: string;
  readonly log: Logger;
  readonly clock: () => number;
  /** Reads one input message of `zone`, in order. */
  readonly deliver: (zone: string, message: Uint8Array) => void;
  /** `gateway`'s input messages for `zone` were lost for good: its sessions there are sent their state anew. */
  readonly lost: (zone: string, gateway: string) => void;
}

export class InputOrder {
  /** By zone name, then by gateway. */
  private readonly streams = new Map<string, Map<string, InOrder<Uint8Array>>>();
  private readonly reader = new Reader();

  constructor(private readonly opts: InputOrderOptions) {}

  /** A message on the zone's input subject: read now, held behind a gap, or dropped as a repeat. */
  receive(zone: string, data: Uint8Array): void {
    const r = this.reader.reset(data);
    const { gateway, seq } = ZoneInputs.headField.read(r);
    // Not in sequence: a host forwarding inputs after a player it handed on, or a resend request.
    if (seq === 0) return this.opts.deliver(zone, data);
    const marker = r.remaining === 0;
    const stream = this.stream(zone, gateway);
    // Held messages outlive the handler: the bus's bytes are valid only while it runs.
    stream.receive(seq, marker ? undefined : stream.inOrder(seq) ? data : data.slice());
  }

  /** The gateway is gone: a new one under its id counts afresh. */
  forgetGateway(gateway: string): void {
    for (const byGateway of this.streams.values()) {
      byGateway.get(gateway)?.reset();
      byGateway.delete(gateway);
    }
  }

  /** The zone is made afresh (lost to another host, or stopped): its streams start over. */
  forgetZone(zone: string): void {
    for (const stream of this.streams.get(zone)?.values() ?? []) stream.reset();
    this.streams.delete(zone);
  }

  close(): void {
    for (const zone of [...this.streams.keys()]) this.forgetZone(zone);
  }

  private stream(zone: string, gateway: string): InOrder<Uint8Array> {
    let byGateway = this.streams.get(zone);
    if (!byGateway) this.streams.set(zone, (byGateway = new Map()));
    let stream = byGateway.get(gateway);
    if (!stream) {
      const { log } = this.opts;
      stream = new InOrder<Uint8Array>(
        {
          deliver: (message) => this.opts.deliver(zone, message),
          ask: (from) => this.ask(zone, gateway, from),
          gaveUp: (from, to) => {
            log.warn(
              { zone, gateway, from, to },
              'zone inputs lost for good: sending those sessions their state',
            );
            this.opts.lost(zone, gateway);
          },
        },
        this.opts.clock,
      );
      byGateway.set(gateway, stream);
    }
    return stream;
  }

  /** Asks `gateway` for its input messages of `zone` from `from` on (one record outside its tick sequence). */
  private ask(zone: string, gateway: string, from: number): void {
    this.opts.log.info({ zone, gateway, from }, 'zone inputs missing: asking for them again');
    const w = new Writer(64);
    GatewayBatch.begin(w, { host: this.opts.hostId, seq: 0 });
    ResendInputs.write(w, { session: 0, zone: zoneId(zone), from });
    try {
      this.opts.bus.publish(Subjects.gatewayDirect(gateway), w.finish());
    } catch (err) {
      // Disconnected or closed: asked again while the gap stays open.
      this.opts.log.debug({ err, zone, gateway }, 'could not ask for zone inputs');
    }
  }
}
