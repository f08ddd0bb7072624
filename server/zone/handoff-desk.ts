/**
 * Hand-off across a border: a player who walks into the zone beside is handed to it. A zone
 * this host runs takes it in process at its next step; a zone another host runs is asked over
 * the bus with a HANDOFF request (handOver), and this host answers the requests of the hosts
 * beside it (onHandoff). Until a request is answered the player stands here as a ghost.
 */
import { Writer } from '../../shared/codec/writer.js';
import { BusError, BusErrorCode, type Bus, type BusMessage } from '../cluster/bus.js';
import { decodeHandoff, encodeHandoff } from '../cluster/border-wire.js';
import type { RecordOut } from '../cluster/inner/define.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import { Handoff, HandoffAnswer, HandoffRequest } from '../cluster/wire.js';
import type { Logger } from '../log.js';
import { handoffs } from '../metrics/index.js';
import type { HandoffState, WorldEvent } from '../world/index.js';
import type { Arrivals } from './arrivals.js';
import type { Forwards } from './forwards.js';
import type { Seat, SeatBook } from './seat-book.js';
import type { HostedZones } from './hosted-zones.js';
import type { ZoneRunner } from './zone-runner.js';

/** How long a HANDOFF request waits for its answer, and how many times it is asked. */
const HANDOFF_ANSWER_MS = 1_000;
const HANDOFF_TRIES = 3;
/**
 * A HANDOFF request older than this (by the receiver's clock) is refused: its sender gives the
 * player back once HANDOFF_ANSWER_MS has passed without an answer. The difference allows for
 * the hosts' clocks being that far apart.
 */
const HANDOFF_FRESH_MS = 750;

export interface HandoffOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly clock: () => number;
}

export class HandoffDesk {
  private readonly clock: () => number;
  /** Every zone this host has, by name (HostedZones' map: a lost zone is replaced in it). */
  private readonly zones: ReadonlyMap<string, ZoneRunner>;

  constructor(
    private readonly opts: HandoffOptions,
    private readonly hosted: HostedZones,
    private readonly seats: SeatBook,
    private readonly forwards: Forwards,
    private readonly arrivals: Arrivals,
  ) {
    this.clock = opts.clock;
    this.zones = hosted.zones;
  }

  private running(zone: string): boolean {
    return this.hosted.running(zone);
  }

  /**
   * A player walked into the zone beside (one this host runs: borders are open only to those):
   * its seat moves there with its session and output, and that zone takes it over at its next
   * step. Inputs already on their way to the old zone follow the seat (onZoneInput).
   */
  onHandedOff(from: ZoneRunner, e: Extract<WorldEvent, { type: 'handedOff' }>): void {
    from.unbind(e.playerId);
    const seat = this.seats.seatOf(e.sessionId, e.playerId);
    const to = this.zones.get(e.to);
    // A zone this host has but does not run (a standby's, held by another host) is asked too.
    if (!to || !this.running(e.to)) {
      if (seat) this.handOver(seat, from, e.to, e.state);
      return;
    }
    handoffs.inc({ kind: 'local' });
    to.queue({ type: 'arrive', sessionId: e.sessionId, state: e.state });
    // After the arrive: what the seat queues there (a leave, a detach) applies to the arrival.
    if (seat) this.seats.drive(seat, { type: 'handedOff' }, { host: to });
  }

  /**
   * Hands a seat to the host of `zone` (another process): a HANDOFF request on the zone's
   * handoff subject, sent as from the session's gateway, carries the player's state. Until
   * the answer, the seat stays here without an output (its inputs are dropped) and the player
   * stands here as a ghost. TAKEN: the seat leaves this host without a LEFT (the next host
   * tells the gateway MOVED), and inputs that still come here for the session are sent on
   * after it for a while. REFUSED, nobody running the zone, or no answer HANDOFF_TRIES times
   * over a live connection: the player is given back to its zone (giveBack). While this
   * host's connection is down the request is asked again, never given up: an answer lost on
   * the way may have been TAKEN, and the player must not be in two zones.
   */
  private handOver(seat: Seat, from: ZoneRunner, zone: string, state: HandoffState): void {
    if (!this.seats.drive(seat, { type: 'handedOut' })) return;
    handoffs.inc({ kind: 'sent' });
    void this.askHandoff(seat, from, zone, state);
  }

  private async askHandoff(seat: Seat, from: ZoneRunner, zone: string, state: HandoffState): Promise<void> {
    const bytes = encodeHandoff(state);
    const subject = Subjects.zoneHandoff(zoneId(zone));
    let unanswered = 0;
    for (;;) {
      // The seat went with its zone (lost to another host) or the host is stopping.
      if (this.seats.get(seat.worldSession) !== seat || this.zones.get(from.name) !== from) return;
      const w = new Writer(64 + bytes.length);
      HandoffRequest.begin(w, { gateway: seat.link.gateway, epoch: seat.link.to });
      Handoff.write(w, {
        session: seat.session,
        account: seat.accountId,
        sentAt: this.clock(),
        state: bytes,
      });
      let answer: HandoffAnswer | undefined;
      try {
        const reply = await this.opts.bus.request(subject, w.finish(), { timeoutMs: HANDOFF_ANSWER_MS });
        answer = HandoffAnswer.decode(reply).answer;
      } catch (err) {
        const code = err instanceof BusError ? err.code : undefined;
        if (code === BusErrorCode.Closed) return;
        const down = code === BusErrorCode.Disconnected || !this.opts.bus.stats().connected;
        if (down || (code === BusErrorCode.Timeout && ++unanswered < HANDOFF_TRIES)) {
          if (down) await new Promise((resolve) => setTimeout(resolve, HANDOFF_ANSWER_MS / 4));
          continue;
        }
        this.opts.log.warn(
          { err, zone, session: seat.session },
          'hand-off unanswered: the player is given back',
        );
      }
      if (this.seats.get(seat.worldSession) !== seat || this.zones.get(from.name) !== from) return;
      const held = seat.heldInputs;
      const movedOn = seat.movedOn ?? false;
      seat.heldInputs = seat.movedOn = undefined;
      if (answer === 'taken') {
        // It leaves this host without a LEFT: the next host tells its gateway MOVED. What its
        // client sent meanwhile (seconds of it across a bus outage) follows it, in order.
        this.seats.drive(seat, { type: 'taken' }, { zone });
        if (held || movedOn)
          this.forwards.sendOn(seat.link.gateway, zone, held ?? [], movedOn ? seat.session : undefined);
      } else if (
        // Standing where it was handed out, its queued moves let go: its client is sent
        // EnterWorld (standing) with it, and a walker walked on unseen by its client would no
        // longer be where it is drawn.
        this.seats.drive(
          seat,
          { type: 'givenBack' },
          { arrival: { ...state, moving: false, moveSpeed: 0, queued: [] } },
        )
      ) {
        // Its ghost gives way to it in place, and its client is sent its zone and view anew.
        handoffs.inc({ kind: 'returned' });
      }
      return;
    }
  }

  /**
   * A HANDOFF request from the host of the zone beside (see handOver): the character walked
   * into this zone. Answered TAKEN once it is on its way in (again for a repeated request: an
   * answer may have been lost), REFUSED otherwise. A request older than HANDOFF_FRESH_MS is
   * refused: by then its sender may have given the player back to its own zone.
   */
  onHandoff(zone: string, message: BusMessage): void {
    const answer = (a: HandoffAnswer, why?: string, detail?: object): void => {
      handoffs.inc({ kind: a === 'taken' ? 'received' : 'refused' });
      if (why) this.opts.log.warn({ zone, ...detail }, `hand-off refused: ${why}`);
      message.respond(HandoffAnswer.encode({ answer: a }));
    };
    const host = this.zones.get(zone);
    let got: { gateway: string; epoch: number; record: RecordOut<typeof Handoff> } | undefined;
    let state: HandoffState;
    try {
      HandoffRequest.read(message.data, {
        Handoff: (record, { gateway, epoch }) => {
          got = { gateway, epoch, record };
        },
      });
      if (!got) throw new Error('no HANDOFF record');
      state = decodeHandoff(got.record.state);
    } catch (err) {
      return answer('refused', 'unreadable', { err });
    }
    const { gateway, record } = got;
    const detail = { gateway, session: record.session };
    if (!host || !this.running(zone)) return answer('refused', 'the zone is not run here', detail);
    const age = this.clock() - record.sentAt;
    if (age > HANDOFF_FRESH_MS) return answer('refused', 'too old', { ...detail, age });
    const { link, seats } = this.seats.linkOf(gateway);
    // Its tick messages to the gateway name the instance the request names.
    link.heard(got.epoch);
    const seat = seats.get(record.session);
    if (seat) {
      const same = seat.characterId === state.characterId && seat.playerId === state.entity.id;
      const coming = seat.state.kind === 'arriving' || seat.state.kind === 'returning';
      if (same && (coming || seat.host === host)) return answer('taken');
      return answer('refused', 'the session is here already', detail);
    }
    this.forwards.forget(gateway, record.session);
    const arriving = this.seats.newSeat(host, link, record.session, record.account, state.characterId, {
      kind: 'arriving',
      connected: true,
    });
    arriving.spells = state.spells;
    arriving.playerId = state.entity.id;
    arriving.output = link.output(record.session);
    // Its gateway's packets wait here for those the old host forwards (arrivals.ts).
    this.arrivals.expect(arriving);
    host.queue({ type: 'arrive', sessionId: arriving.worldSession, state });
    answer('taken');
  }
}
