/**
 * Carries out the effects a seat's transition returns (seat.ts), in the order given: on the
 * seat's zone (join, leave, detach, attach, arrive queued for its next tick; its output bound
 * or dropped), on its gateway (told it entered, moved or exited; the seat relinked to a taker)
 * and on the host it was handed to (its late inputs forwarded there).
 */
import type { Logger } from '../log.js';
import type { Forwards } from './forwards.js';
import type { SeatEffect } from './seat.js';
import type { Seat, SeatContext } from './seat-record.js';

/** The book's seats by gateway: those of a gateway, made on first use, or undefined if none yet. */
export interface SeatsByGateway {
  seatsOf(gateway: string): Map<number, Seat>;
  knownSeats(gateway: string): Map<number, Seat> | undefined;
}

export class SeatEffects {
  constructor(
    private readonly book: SeatsByGateway,
    private readonly forwards: Forwards,
    private readonly log: Logger,
  ) {}

  /** `effect` on `seat`; `ctx` gives what it needs beyond the seat (see SeatBook.drive). */
  carryOut(seat: Seat, effect: SeatEffect, ctx: SeatContext): void {
    const playerId = seat.playerId!;
    switch (effect.kind) {
      case 'queueJoin':
        seat.host.queue({ type: 'join', sessionId: seat.worldSession, character: ctx.character! });
        return;
      case 'queueLeave':
        seat.host.queue({ type: 'leave', entityId: playerId, reason: effect.reason });
        return;
      case 'queueDetach':
        seat.host.queue({ type: 'detach', entityId: playerId });
        return;
      case 'queueAttach':
        seat.host.queue({ type: 'attach', entityId: playerId, sessionId: seat.worldSession });
        return;
      case 'queueArrive':
        seat.host.queue({ type: 'arrive', sessionId: seat.worldSession, state: ctx.arrival! });
        return;
      case 'openOutput':
        seat.output = seat.link.output(seat.session);
        return;
      case 'bindOutput':
        if (seat.output) seat.host.bind(playerId, seat.output);
        return;
      case 'dropOutput':
        if (seat.playerId !== undefined) seat.host.unbind(playerId);
        if (seat.output) seat.output.closed = true;
        seat.output = undefined;
        return;
      default:
        this.tell(seat, effect, ctx);
    }
  }

  /** The effects that reach beyond the zone: the seat's gateway, or the host it went to. */
  private tell(seat: Seat, effect: SeatEffect, ctx: SeatContext): void {
    switch (effect.kind) {
      case 'relink': {
        const { link, session } = ctx.taker!;
        seat.link = link;
        seat.session = session;
        this.book.seatsOf(link.gateway).set(session, seat);
        this.log.info(
          { gateway: link.gateway, session, characterId: seat.characterId },
          'took over the character in the world',
        );
        return;
      }
      case 'tellEntered':
        seat.link.entered(seat.session, seat.playerId!, seat.characterId);
        return;
      case 'tellMoved':
        seat.link.moved(seat.session, seat.host.name);
        return;
      case 'tellExited': {
        // Unless the gateway forgot the session (it is gone, or took it over elsewhere).
        const seats = this.book.knownSeats(seat.link.gateway);
        if (seats?.get(seat.session) !== seat) return;
        seats.delete(seat.session);
        seat.link.exited(seat.session, effect.exit);
        return;
      }
      case 'forwardInputs':
        this.forwards.add(seat.link.gateway, seat.session, ctx.zone!);
        return;
      case 'forwardDetach':
        // Its connection dropped while the request was out: the next host lets it linger.
        this.forwards.detach(seat.link.gateway, seat.session, ctx.zone!);
        return;
    }
  }
}
