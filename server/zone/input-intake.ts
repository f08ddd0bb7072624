/**
 * What the gateways send a zone on `wyvern.zone.<zone>.in` (ZoneInputs records): a client's
 * zone packet becomes one world input queued for its player's zone, a JOIN enters a character
 * (through the seat book), a DETACH and a RESYNC drive the session's seat, and BEHIND is the
 * gateway's soft-limit verdict on the session's send buffer. A record for a session handed to
 * another host goes on after it (forwards.ts). Each gateway's messages are read in the order it
 * sent them (input-order.ts: one lost on the bus is asked for again), and RESENDTICKS has this
 * host's lost tick messages to that gateway sent again.
 */
import { DecodeError } from '../../shared/codec/errors.js';
import { ChatSend, ErrorCode, ErrorPacket } from '../../shared/protocol/index.js';
import type { Bus, BusMessage } from '../cluster/bus.js';
import type { InnerRecord, RecordOut, StreamHandlers } from '../cluster/inner/define.js';
import { Behind, Detach, LeftReason, MovedOn, Packet, Resync, ZoneInputs } from '../cluster/wire.js';
import type { Logger } from '../log.js';
import type { WorldInput } from '../world/index.js';
import type { Arrivals } from './arrivals.js';
import type { Forwards } from './forwards.js';
import { InputOrder } from './input-order.js';
import { zoneInput, zonePacketByOpcode } from './routes.js';
import { takesInputs } from './seat.js';
import { resyncSeats, type Seat, type SeatBook } from './seat-book.js';
import type { HostedZones } from './hosted-zones.js';
import type { ZoneRunner } from './zone-runner.js';

export interface InputIntakeOptions {
  readonly bus: Bus;
  /** This zone host's id and epoch (the head of what it sends a gateway). */
  readonly hostId: string;
  readonly epoch: number;
  readonly log: Logger;
  readonly clock: () => number;
}

export class InputIntake {
  /** Each zone's zone-input handlers, made once. */
  private readonly inputHandlers = new WeakMap<ZoneRunner, StreamHandlers<typeof ZoneInputs>>();
  private readonly clock: () => number;
  /** Each gateway's zone inputs in the order it sent them, none lost without a word. */
  private readonly order: InputOrder;

  constructor(
    private readonly opts: InputIntakeOptions,
    private readonly hosted: HostedZones,
    private readonly seats: SeatBook,
    private readonly forwards: Forwards,
    private readonly arrivals: Arrivals,
  ) {
    this.clock = opts.clock;
    this.order = new InputOrder({
      ...opts,
      deliver: (zone, data) => this.read(zone, data),
      lost: (zone, gateway) => this.inputsLost(zone, gateway),
    });
  }

  /** A message on the zone's input subject (the zone is this host's to take: HostedZones.admit). */
  onZoneInputs(zone: string, message: BusMessage): void {
    this.order.receive(zone, message.data);
  }

  /** The gateway is gone: a new one under its id counts afresh. */
  forgetGateway(gateway: string): void {
    this.order.forgetGateway(gateway);
  }

  /** The zone is made afresh (lost to another host): its streams start over. */
  forgetZone(zone: string): void {
    this.order.forgetZone(zone);
  }

  /** The bus came back: each gateway is asked for what it sent meanwhile. */
  probe(): void {
    this.order.probe();
  }

  close(): void {
    this.order.close();
  }

  /** One zone input message, in its gateway's order. */
  private read(zone: string, data: Uint8Array): void {
    const host = this.hosted.admit(zone);
    if (!host) return;
    let handlers = this.inputHandlers.get(host);
    if (!handlers) this.inputHandlers.set(host, (handlers = this.zoneInputHandlers(host)));
    try {
      ZoneInputs.read(data, handlers);
    } catch (err) {
      this.opts.log.warn({ err, zone }, 'zone input message refused');
    }
  }

  /**
   * A gateway's inputs for the zone were lost for good (it no longer had them to send again):
   * moves, stops and lines said there may be missing, so each of its sessions in the zone is
   * sent its state anew and its client stands where this host has it.
   */
  private inputsLost(zone: string, gateway: string): void {
    resyncSeats(this.seats, (seat) => seat.link.gateway === gateway && seat.host.name === zone);
  }

  /** What each zone input does, for the zone `host` runs. */
  private zoneInputHandlers(host: ZoneRunner): StreamHandlers<typeof ZoneInputs> {
    return {
      // A gateway's own message names the instance it is (a forward in its name names none).
      begin: ({ gateway, epoch }) => this.seats.linkOf(gateway).link.heard(epoch),
      Packet: (record, { gateway, seq }) => this.packet(gateway, record, seq !== 0),
      Join: ({ session, account, character }, { gateway }) => {
        const { link, seats } = this.seats.linkOf(gateway);
        link.forgive(session);
        void this.seats.join(host, link, session, account, character).catch((err: unknown) => {
          this.opts.log.error({ err, gateway, session }, 'enter world failed');
          const failed = seats.get(session);
          if (failed) this.seats.drive(failed, { type: 'loadFailed' });
          else link.exited(session, LeftReason.NotEntered);
        });
      },
      Detach: (record, { gateway }) => {
        this.seats.linkOf(gateway).link.forgive(record.session);
        const seat = this.inputSeat(gateway, Detach, record);
        if (seat) this.seats.drive(seat, { type: 'closed', now: this.clock() });
      },
      Behind: (record, { gateway }) => {
        const seat = this.inputSeat(gateway, Behind, record);
        if (seat?.output) seat.output.behindNow = record.behind;
      },
      MovedOn: (record, { gateway }) => this.movedOn(gateway, record),
      InputsGone: ({ before }, { gateway, epoch }) => {
        this.order.skipTo(host.name, gateway, epoch, before);
      },
      ResendTicks: ({ from }, { gateway }) => {
        if (!this.seats.linkOf(gateway).link.resend(from)) {
          this.opts.log.warn({ gateway, from }, 'tick messages asked for again are no longer kept');
        }
      },
      Resync: (record, { gateway }) => {
        const seat = this.inputSeat(gateway, Resync, record);
        if (seat && this.seats.drive(seat, { type: 'resync' })) {
          this.opts.log.warn(
            { gateway: seat.link.gateway, session: seat.session },
            'a tick message was lost: sending the session its state anew',
          );
        }
      },
    };
  }

  /**
   * A client's zone packet: decoded once, into its player's world input. `straight`: in its
   * gateway's own stream (not forwarded by the host that handed the player on).
   */
  packet(gateway: string, record: RecordOut<typeof Packet>, straight: boolean): void {
    const { link } = this.seats.linkOf(gateway);
    // Answered REFUSED already: nothing after the bad packet counts (its connection goes).
    if (link.refusedAny && link.refused(record.session)) return;
    const seat = this.inputSeat(gateway, Packet, record);
    // A player out to another host: its inputs wait to follow it there (or are let go if
    // it comes back: its client is sent its zone and view anew).
    if (seat?.state.kind === 'handingOff') {
      (seat.heldInputs ??= []).push({ ...record, payload: record.payload.slice() });
      return;
    }
    // A player handed to another zone of this host: its inputs follow it there.
    if (!seat || seat.playerId === undefined || !takesInputs(seat.state)) return;
    if (this.arrivals.holds(seat, record, straight)) return;
    const def = zonePacketByOpcode(record.opcode);
    if (!def) {
      // Gateways route by the declared target: only a broken one sends this.
      this.opts.log.warn({ gateway, opcode: record.opcode }, 'zone input refused: not a zone packet');
      return;
    }
    let input: WorldInput;
    try {
      // The payload's one decode: the gateway passed it on unread.
      input = zoneInput(def, seat.playerId, record.payload, record.receivedAt);
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      link.refuse(record.session, record.opcode, err);
      return;
    }
    // A zone stopped for its claim takes no game inputs: they would pile up to no end. A
    // line said is refused to its sayer; a move is let go (its seats are resynced when the
    // zone runs again: HostedZones' onResumed).
    if (this.hosted.isFenced(seat.host.name)) {
      if (def.opcode === ChatSend.opcode) refuseStopped(seat, def.opcode);
      return;
    }
    seat.host.queue(input);
  }

  /**
   * The gateway heard MOVED: nothing more for the session comes here. Handed to another host,
   * that host hears it after what was forwarded (or, while its hand-off is still out, after
   * the packets held for it); taken from another host, what waited here is applied.
   */
  private movedOn(gateway: string, record: RecordOut<typeof MovedOn>): void {
    const seat = this.inputSeat(gateway, MovedOn, record);
    if (!seat) this.forwards.forget(gateway, record.session);
    else if (seat.state.kind === 'handingOff') seat.movedOn = true;
    else this.arrivals.release(seat);
  }

  /**
   * The seat a zone input is for, if the session has one here; undefined too when the
   * session was handed to another host and the input went on to it (see forwards.ts).
   */
  private inputSeat<R extends InnerRecord>(
    gateway: string,
    def: R,
    record: RecordOut<R> & { session: number },
  ): Seat | undefined {
    const seat = this.seats.linkOf(gateway).seats.get(record.session);
    if (!seat && this.forwards.size > 0) this.forwards.forward(gateway, def, record);
    return seat;
  }
}

/** A packet that a stopped zone cannot take, refused to its sender with an error it sees. */
function refuseStopped(seat: Seat, opcode: number): void {
  const output = seat.output;
  if (!output || output.closed) return;
  output.out.raw(
    ErrorPacket.encode({
      code: ErrorCode.ZoneDown,
      reason: `not said: zone ${seat.host.name} has stopped until its host has its claim again`,
      opcode,
      fatal: false,
    }),
  );
  output.commit();
}
