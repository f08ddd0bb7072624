/**
 * A zone host's zone inputs put back in order: each gateway numbers its input messages per
 * zone (ZoneInputs' `seq`, within the gateway's `epoch`, counted afresh for each host of the
 * zone: `to`), and a message lost on the bus (NATS
 * drops what is published while the host is not subscribed, as after a nats-server restart) is
 * asked for again from the gateway, which keeps what it sent for a while
 * (server/cluster/sequenced.ts). What comes after a gap waits for it, so a move, a stop or a
 * line said is never applied out of its order nor dropped without a word: given up (the
 * gateway no longer has it: INPUTSGONE), the gateway's sessions in the zone are sent their
 * state anew, so their clients stand where the host has them.
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
  /** This zone host's id and epoch (the head of what it sends a gateway). */
  readonly hostId: string;
  readonly epoch: number;
  readonly log: Logger;
  readonly clock: () => number;
  /** Reads one input message of `zone`, in order. */
  readonly deliver: (zone: string, message: Uint8Array) => void;
  /** `gateway`'s input messages for `zone` were lost for good: its sessions there are sent their state anew. */
  readonly lost: (zone: string, gateway: string) => void;
}

/** One gateway's stream for one zone, under the epoch it is counted in, and the host it names. */
interface Stream {
  readonly epoch: number;
  to: number;
  readonly order: InOrder<Uint8Array>;
}

export class InputOrder {
  /** By zone name, then by gateway. */
  private readonly streams = new Map<string, Map<string, Stream>>();
  private readonly reader = new Reader();

  constructor(private readonly opts: InputOrderOptions) {}

  /** A message on the zone's input subject: read now, held behind a gap, or dropped as a repeat. */
  receive(zone: string, data: Uint8Array): void {
    const r = this.reader.reset(data);
    const { gateway, epoch, to, seq } = ZoneInputs.headField.read(r);
    // Not in sequence: a request or an answer about a stream, or a host forwarding inputs.
    if (seq === 0) return this.opts.deliver(zone, data);
    const marker = r.remaining === 0;
    // Named its receiver, this host has the stream from its first message; else (the gateway
    // has not heard of it yet: it came to the zone under way) from the first it hears.
    const { order } = this.stream(zone, gateway, epoch, to);
    // Held messages outlive the handler: the bus's bytes are valid only while it runs.
    order.receive(seq, marker ? undefined : order.inOrder(seq) ? data : data.slice());
  }

  /** The gateway no longer has its messages for the zone before `before` (INPUTSGONE). */
  skipTo(zone: string, gateway: string, epoch: number, before: number): void {
    const stream = this.streams.get(zone)?.get(gateway);
    if (stream?.epoch === epoch) stream.order.skipTo(before);
  }

  /** Asks each gateway for anything after what was handed on (this host's bus just came back). */
  probe(): void {
    for (const byGateway of this.streams.values()) for (const { order } of byGateway.values()) order.probe();
  }

  /** The gateway is gone: a new one under its id counts afresh. */
  forgetGateway(gateway: string): void {
    for (const byGateway of this.streams.values()) {
      byGateway.get(gateway)?.order.reset();
      byGateway.delete(gateway);
    }
  }

  /** The zone is made afresh (lost to another host): its streams start over. */
  forgetZone(zone: string): void {
    for (const stream of this.streams.get(zone)?.values() ?? []) stream.order.reset();
    this.streams.delete(zone);
  }

  close(): void {
    for (const zone of [...this.streams.keys()]) this.forgetZone(zone);
  }

  /**
   * The gateway's stream for the zone. A new epoch (the gateway restarted) starts a new one, and
   * so does a new host named where another was (the gateway counts afresh for it, as it does
   * then: InputOutbox.address); a host named where none was goes on with the count.
   */
  private stream(zone: string, gateway: string, epoch: number, to: number): Stream {
    let byGateway = this.streams.get(zone);
    if (!byGateway) this.streams.set(zone, (byGateway = new Map()));
    const known = byGateway.get(gateway);
    if (known?.epoch === epoch && (known.to === 0 || known.to === to)) {
      known.to = to;
      return known;
    }
    known?.order.reset();
    const fromOne = to === this.opts.epoch;
    const { log } = this.opts;
    const order = new InOrder<Uint8Array>(
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
        fromOne,
      },
      this.opts.clock,
    );
    const stream = { epoch, to, order };
    byGateway.set(gateway, stream);
    return stream;
  }

  /** Asks `gateway` for its input messages of `zone` from `from` on (one record outside its tick sequence). */
  private ask(zone: string, gateway: string, from: number): void {
    this.opts.log.info({ zone, gateway, from }, 'zone inputs missing: asking for them again');
    const w = new Writer(64);
    const to = this.streams.get(zone)?.get(gateway)?.epoch ?? 0;
    GatewayBatch.begin(w, { host: this.opts.hostId, epoch: this.opts.epoch, to, seq: 0 });
    ResendInputs.write(w, { session: 0, zone: zoneId(zone), from });
    try {
      this.opts.bus.publish(Subjects.gatewayDirect(gateway), w.finish());
    } catch (err) {
      // Disconnected or closed: asked again while the gap stays open.
      this.opts.log.debug({ err, zone, gateway }, 'could not ask for zone inputs');
    }
  }
}
