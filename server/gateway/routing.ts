/**
 * Where the dispatch core sends packets whose target is 'zone' or 'world' on a gateway:
 *
 *   zone packet        -> a PACKET record in the zone's input message (the fields as
 *                         received, re-encoded without a header), if its placement has an
 *                         entity there; dropped while its zone is down
 *   EnterWorldRequest  -> entering (the character's row is checked, then a JOIN)
 *   Whisper, Who       -> the world requests
 */
import type { Writer } from '../../shared/codec/writer.js';
import { EnterWorldRequest } from '../../shared/protocol/index.js';
import type { PayloadOf } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import { Packet } from '../cluster/wire.js';
import type { GameRouter } from '../dispatch/router.js';
import type { Session } from '../session/session.js';
import { routeWorld, type WorldRoutes } from './world-routes.js';
import type { InputOutbox } from './outbox.js';
import { sendsInputs } from './placement.js';
import type { PlacementBook } from './placements.js';

export interface RoutingDeps {
  readonly outbox: InputOutbox;
  readonly book: PlacementBook;
  /** Server clock in ms (Unix epoch): the time a zone packet was received. */
  readonly clock: () => number;
  /** Enters the session's character into the world (EnterWorldRequest). */
  readonly enter: (session: Session, characterId: number) => Promise<void>;
  readonly whisper: (session: Session, to: string, text: string) => void;
  readonly who: (session: Session) => void;
}

export class Routing implements GameRouter {
  constructor(private readonly deps: RoutingDeps) {}

  zone<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    const d: AnyClientPacket = def;
    if (d.target !== 'zone') {
      session.error('ERR_WRONG_STATE', `${d.name} is not a zone packet`, { fatal: false, opcode: d.opcode });
      return;
    }
    const p = this.deps.book.get(session.id);
    // Nobody to apply it while the zone is down: dropped (the client was told ERR_ZONE_DOWN).
    if (!p || !sendsInputs(p.state)) return;
    const w = this.deps.outbox.inputs(p.character.zone);
    if (!w) return;
    Packet.write(w, {
      session: session.id,
      receivedAt: this.deps.clock(),
      opcode: d.opcode,
      payload: (out) => (d.payload.write as (w: Writer, v: unknown) => void)(out, payload),
    });
  }

  world<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    const d: AnyClientPacket = def;
    if (d.target !== 'world') {
      session.error('ERR_WRONG_STATE', `${d.name} is not a world packet`, { fatal: false, opcode: d.opcode });
      return;
    }
    routeWorld(this.worldRoutes, d, session, payload);
  }

  /** World packets: entering goes to the character's zone; whisper and who to whoever owns them. */
  private readonly worldRoutes: WorldRoutes = {
    EnterWorldRequest: (session, { characterId }) => {
      void this.deps.enter(session, characterId).catch((err: unknown) => {
        session.log.error({ err }, 'enter world failed');
        session.error('ERR_INTERNAL', 'could not enter the world', {
          fatal: false,
          opcode: EnterWorldRequest.opcode,
        });
      });
    },
    Whisper: (session, { to, text }) => this.deps.whisper(session, to, text),
    Who: (session) => this.deps.who(session),
  };
}
