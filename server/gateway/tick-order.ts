/**
 * The zone hosts' tick messages to a gateway, put back in order: each host numbers its
 * messages to this gateway (GatewayBatch's `seq`), and one lost on the bus (NATS drops what is
 * published while the gateway is not subscribed, as after a nats-server restart) is asked for
 * again (ResendTicks, on a zone input subject of that host) from the host, which keeps what
 * it sent for a while (server/cluster/sequenced.ts). What comes after a gap waits for it, so a
 * client gets every frame once and in order: the chat lines, the zone change and the motion
 * a lost message carried. Given up (the host no longer has it), the host's sessions here are
 * sent their state anew, as before.
 */
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';
import type { Bus } from '../cluster/bus.js';
import { InOrder } from '../cluster/sequenced.js';
import { Subjects } from '../cluster/subjects.js';
import { GatewayBatch, ResendTicks, ZoneInputs } from '../cluster/wire.js';
import type { Logger } from '../log.js';

export interface TickOrderOptions {
  /** This gateway's id and epoch (the head of what it sends a host). */
  readonly gateway: string;
  readonly epoch: number;
  readonly bus: Bus;
  readonly log: Logger;
  readonly clock: () => number;
  /** Reads one batch, in its host's order (or at once: `.direct`, seq 0). */
  readonly deliver: (message: Uint8Array) => void;
  /** A zone `host` runs, whose input subject reaches it (undefined: none known). */
  readonly zoneOf: (host: string) => string | undefined;
  /** Tick messages of `host` from `from` up to `to` (not included) are lost for good. */
  readonly lost: (host: string, from: number, to: number) => void;
}

/** One host's stream, under the epoch it is counted in. */
interface Stream {
  readonly epoch: number;
  readonly order: InOrder<Uint8Array>;
}

export class TickOrder {
  private readonly streams = new Map<string, Stream>();
  private readonly reader = new Reader();

  constructor(private readonly opts: TickOrderOptions) {}

  /** A message on the gateway's tick or direct subject. */
  receive(data: Uint8Array): void {
    const r = this.reader.reset(data);
    const { host, epoch, to, seq } = GatewayBatch.headField.read(r);
    // Meant for an earlier instance of this gateway (its sessions, its count): not ours.
    if (to !== 0 && to !== this.opts.epoch) return;
    if (seq === 0) return this.opts.deliver(data);
    const marker = r.remaining === 0;
    const { order } = this.stream(host, epoch, to === this.opts.epoch);
    // Held messages outlive the handler: the bus's bytes are valid only while it runs.
    order.receive(seq, marker ? undefined : order.inOrder(seq) ? data : data.slice());
  }

  /** The epoch of `host` as last heard (0: never). */
  epochOf(host: string): number {
    return this.streams.get(host)?.epoch ?? 0;
  }

  /** The host no longer has its tick messages before `before` (TICKSGONE). */
  skipTo(host: string, epoch: number, before: number): void {
    const stream = this.streams.get(host);
    if (stream?.epoch === epoch) stream.order.skipTo(before);
  }

  /** Asks each host for anything after what was handed on (this gateway's bus just came back). */
  probe(): void {
    for (const { order } of this.streams.values()) order.probe();
  }

  close(): void {
    for (const s of this.streams.values()) s.order.reset();
    this.streams.clear();
  }

  /**
   * The host's stream; a new epoch (the host restarted) starts a new one, counted from 1 when
   * it names this gateway (it always does, once the host has heard of it).
   */
  private stream(host: string, epoch: number, fromOne: boolean): Stream {
    const known = this.streams.get(host);
    if (known?.epoch === epoch) return known;
    known?.order.reset();
    const order = new InOrder<Uint8Array>(
      {
        deliver: this.opts.deliver,
        ask: (from) => this.ask(host, from),
        gaveUp: (from, to) => this.opts.lost(host, from, to),
        fromOne,
      },
      this.opts.clock,
    );
    const stream = { epoch, order };
    this.streams.set(host, stream);
    return stream;
  }

  /** Asks `host` (through a zone it runs) for its tick messages from `from` on, outside the input sequence. */
  private ask(host: string, from: number): void {
    const zone = this.opts.zoneOf(host);
    if (zone === undefined) {
      this.opts.log.warn({ host, from }, 'tick messages missing from a host with no zone known: waiting');
      return;
    }
    this.opts.log.info({ host, zone, from }, 'tick messages missing: asking for them again');
    const w = new Writer(64);
    const to = this.streams.get(host)?.epoch ?? 0;
    ZoneInputs.begin(w, { gateway: this.opts.gateway, epoch: this.opts.epoch, to, seq: 0 });
    ResendTicks.write(w, { session: 0, from });
    try {
      this.opts.bus.publish(Subjects.zoneInput(zone), w.finish());
    } catch (err) {
      // Disconnected or closed: asked again while the gap stays open.
      this.opts.log.debug({ err, host }, 'could not ask for tick messages');
    }
  }
}
