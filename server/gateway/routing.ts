/**
 * Where the dispatch core sends packets whose target is 'zone' or 'world' on a gateway:
 *
 *   zone packet        -> a PACKET record in the zone's input message (the payload as the
 *                         frame carried it, unread: routed by its header, decoded once by the
 *                         zone host), if its placement has an entity there; dropped while
 *                         its zone is down
 *   EnterWorldRequest  -> entering (the character's row is checked, then a JOIN)
 *   Whisper, Who       -> the world requests
 */
import type { Frame } from '../../shared/codec/frame.js';
import { ChatSend, EnterWorldRequest } from '../../shared/protocol/index.js';
import type { PayloadOf } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import type { RecordIn } from '../cluster/inner/define.js';
import { Packet } from '../cluster/wire.js';
import type { GameRouter, ZonePacketDef } from '../dispatch/router.js';
import type { Session } from '../session/session.js';
import { routeWorld, type WorldRoutes } from './world-routes.js';
import type { InputOutbox } from './outbox.js';
import { sendsInputs } from './placement.js';
import type { PlacementBook } from './placements.js';

const EMPTY = new Uint8Array(0);

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

  zone(session: Session, def: ZonePacketDef, frame: Frame): void {
    const p = this.deps.book.get(session.id);
    // Nobody to apply it while the zone is down: dropped (the client was told ERR_ZONE_DOWN).
    if (!p || !sendsInputs(p.state)) return;
    // A line said is noted with its message: should that be given up, its sayer is told.
    const w = this.deps.outbox.inputs(
      p.character.zone,
      def.opcode === ChatSend.opcode ? session.id : undefined,
    );
    if (!w) return;
    // The payload as the frame carried it, unread: the zone host decodes it.
    const record = this.packetRecord;
    record.session = session.id;
    record.receivedAt = this.deps.clock();
    record.opcode = def.opcode;
    record.payload.buf = frame.bytes;
    record.payload.start = frame.start;
    record.payload.end = frame.end;
    Packet.write(w, record);
    // Not kept past the call: the frame's bytes are the connection's.
    record.payload.buf = EMPTY;
  }

  /** The PACKET record written for each zone packet: one value, filled anew each time. */
  private readonly packetRecord: RecordIn<typeof Packet> & {
    payload: { buf: Uint8Array; start: number; end: number };
  } = {
    session: 0,
    receivedAt: 0,
    opcode: 0,
    payload: { buf: EMPTY, start: 0, end: 0 },
  };

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
