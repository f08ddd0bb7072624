/**
 * Where packets with target 'zone' or 'world' go. The world implements this by queueing
 * the input for its next tick; the dispatch core only checks state and rate before calling.
 */
import type { Frame } from '../../shared/codec/frame.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import type { Session } from '../session/session.js';

/** A client packet whose target is 'zone'. */
export type ZonePacketDef = Extract<AnyClientPacket, { target: 'zone' }>;

export interface GameRouter {
  /**
   * A packet for the session's zone (movement, cast, say, logout), routed by its header alone:
   * its payload is `frame.bytes[frame.start, frame.end)`, not decoded (the zone host decodes it,
   * once). The bytes are valid only during the call.
   */
  zone(session: Session, def: ZonePacketDef, frame: Frame): void;
  /** A packet for the world as a whole (enter world, whisper, who). */
  world<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void;
  /** The session's connection closed: its entity lingers, then leaves (called once per session). */
  sessionClosed?(session: Session): void;
}

/** Until a world is attached: every routed packet is refused (nobody can be in a world yet). */
export const noWorldRouter: GameRouter = {
  zone(session, def) {
    session.error('ERR_WRONG_STATE', `${def.name}: no world is running on this server`, {
      fatal: false,
      opcode: def.opcode,
    });
  },
  world(session, def) {
    session.error('ERR_WRONG_STATE', `${def.name}: no world is running on this server`, {
      fatal: false,
      opcode: def.opcode,
    });
  },
};
