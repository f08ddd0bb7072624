/**
 * What the zone hosts send this gateway: one batch per host and tick on wyvern.gw.<self>.tick
 * (and out of tick on .direct). JOINED puts a session in the world, BYTES go into its
 * connection's write buffer as they are, MOVED follows its character into the next zone, LEFT
 * takes it out; then one flush, and the soft-limit verdicts that changed go back. Each host's
 * tick messages are handed on in its order (tick-order.ts): one missing (NATS delivers at most
 * once) is asked for again, and only one no longer kept gets that host's sessions here a
 * RESYNC. RESENDINPUTS (on .direct) has this gateway's lost input messages sent again. REFUSED (a zone packet's payload the host could not decode) is answered as the
 * dispatch core answers bad input: a fatal Error of its code, reason and opcode.
 */
import type { Bus, BusMessage } from '../cluster/bus.js';
import type { StreamVisitors } from '../cluster/inner/define.js';
import { zoneId } from '../cluster/subjects.js';
import { GatewayBatch, MovedOn } from '../cluster/wire.js';
import type { Logger } from '../log.js';
import { decodeErrors, gatewayBatchSeconds } from '../metrics/index.js';
import type { Backpressure } from './backpressure.js';
import { takesBytes } from './placement.js';
import type { InputOutbox } from './outbox.js';
import type { PlacementBook } from './placements.js';
import { TickOrder } from './tick-order.js';

export interface TickIntakeDeps {
  readonly book: PlacementBook;
  readonly backpressure: Backpressure;
  /** Each zone's id on the bus, by its name. */
  readonly zoneIds: ReadonlyMap<string, string>;
  /** Writes every connection with frames waiting (the server's FlushScheduler). */
  readonly flush: () => void;
  readonly log: Logger;
  /** This gateway's id, and the bus its requests for lost messages go on. */
  readonly gateway: string;
  readonly bus: Bus;
  readonly outbox: Pick<InputOutbox, 'resend' | 'epoch' | 'inputs'>;
  readonly clock: () => number;
  /** A zone the host (its id) runs, whose input subject reaches it (undefined: none known). */
  readonly zoneOf: (host: string) => string | undefined;
}

export class TickIntake {
  /** Each zone host's tick messages in its order, and the sender of the batch being read. */
  private readonly ticks: TickOrder;
  private batchHost = '';
  private batchEpoch = 0;
  /** Times tick messages were lost for good. */
  lostTicks = 0;

  constructor(private readonly deps: TickIntakeDeps) {
    this.ticks = new TickOrder({
      gateway: deps.gateway,
      epoch: deps.outbox.epoch,
      bus: deps.bus,
      log: deps.log,
      clock: deps.clock,
      deliver: (data) => this.readBatch(data),
      zoneOf: deps.zoneOf,
      lost: (host, from, to) => this.lost(host, from - 1, to),
    });
  }

  onBatch(message: BusMessage): void {
    this.ticks.receive(message.data);
  }

  /** The epoch of `host` as last heard (0: never, or no host). */
  epochOf(host: string | undefined): number {
    return host === undefined ? 0 : this.ticks.epochOf(host);
  }

  /** The bus came back: each host is asked for what it sent meanwhile (see TickOrder.probe). */
  probe(): void {
    this.ticks.probe();
  }

  close(): void {
    this.ticks.close();
  }

  /** One batch, in its host's order (tick-order.ts). */
  private readBatch(data: Uint8Array): void {
    const started = performance.now();
    try {
      GatewayBatch.visit(data, this.records);
    } catch (err) {
      this.deps.log.warn({ err }, 'zone host batch refused');
    }
    this.deps.flush();
    this.deps.backpressure.reportBehind();
    gatewayBatchSeconds.observe((performance.now() - started) / 1000);
  }

  /** What each record of a batch does (each record valid only during its call: see GatewayBatch.visit). */
  private readonly records: StreamVisitors<typeof GatewayBatch> = {
    begin: ({ host, epoch }) => {
      this.batchHost = host;
      this.batchEpoch = epoch;
    },
    Joined: ({ session, entity, character }) => {
      const p = this.deps.book.get(session);
      if (p) {
        this.deps.book.drive(p, { type: 'joined' }, { joined: { entity, character, host: this.batchHost } });
        return;
      }
      // Its connection closed on the way in: held here, lingering.
      const held = this.deps.book.lingeringAt(session);
      if (!held) return;
      held.entityId = entity;
      this.deps.book.list(held);
    },
    Bytes: ({ session, frames }) => {
      const p = this.deps.book.get(session);
      if (!p || !takesBytes(p.state)) return;
      const conn = p.session.conn;
      if (conn.closed) return;
      conn.out.rawRange(frames.buf, frames.start, frames.end);
      conn.commit();
      this.deps.backpressure.wrote(p);
    },
    Moved: ({ session, zone }) => {
      // The character walked into the zone beside: its inputs go there, its bytes come from there.
      const p = this.deps.book.get(session);
      const held = p?.character ?? this.deps.book.lingeringAt(session);
      if (!held) return;
      // Taken by another host: the old one is told nothing more comes for it there, after
      // what did (it passes that on, in order, behind what it forwarded).
      if (p?.host !== undefined && p.host !== this.batchHost) {
        const w = this.deps.outbox.inputs(held.zone);
        if (w) MovedOn.write(w, { session });
      }
      held.zone = this.deps.zoneIds.get(zone) ?? zoneId(zone);
      if (p) p.host = this.batchHost;
    },
    Refused: ({ session, opcode, code, reason }) => {
      // The host applies nothing of the session's after this packet; the connection goes.
      const p = this.deps.book.get(session);
      if (!p || p.session.closing) return;
      decodeErrors.inc({ code });
      p.session.error(code, reason, { fatal: true, opcode });
    },
    TicksGone: ({ before }) => {
      this.ticks.skipTo(this.batchHost, this.batchEpoch, before);
    },
    ResendInputs: ({ zone, from }) => {
      if (!this.deps.outbox.resend(zone, from)) {
        this.deps.log.warn({ zone, from }, 'zone inputs asked for again are no longer kept');
      }
    },
    Left: ({ session, reason }) => {
      const p = this.deps.book.get(session);
      if (p) {
        this.deps.book.drive(p, { type: 'left', exit: reason });
        return;
      }
      this.deps.book.endLingering(session);
    },
  };

  /**
   * Tick messages from `host` between `last` and `seq` never came and are no longer kept
   * there: its sessions here missed WorldUpdate deltas and motion they build on, so each is
   * sent its whole state anew.
   */
  private lost(host: string, last: number, seq: number): void {
    const sessions = this.deps.book.driveAll((p) => p.host === host, { type: 'tickLost' });
    this.lostTicks++;
    this.deps.log.warn(
      { host, last, seq, sessions },
      'tick messages lost: resending those sessions their state',
    );
  }
}
