/**
 * The gateway's routing table for world packets, derived from the packet definitions'
 * declared dispatch targets: a client packet defined with target 'world' (it crosses zones:
 * entering the world, whisper, who) goes to one gateway handler. The table is typed from the
 * definitions: a world packet without an entry, or an entry for a packet that is not one, is
 * a compile error (tests/protocol/types.test.ts checks the set).
 */
import type { PayloadOf } from '../../shared/protocol/index.js';
import type {
  AnyClientPacket,
  ClientPacketByName,
  ClientPacketNameFor,
} from '../../shared/protocol/registry.js';
import type { Session } from '../session/session.js';

export type WorldPacketName = ClientPacketNameFor<'world'>;

/** Handles a world packet. */
export type WorldRoutes = {
  readonly [N in WorldPacketName]: (session: Session, payload: PayloadOf<ClientPacketByName<N>>) => void;
};

type WorldPacket = Extract<AnyClientPacket, { target: 'world' }>;

/**
 * Runs a world packet's handler from `routes`. Its payload is the one decoded for `def` (the
 * dispatch core decodes by the same definition), which is the one correlation the types
 * cannot follow.
 */
export function routeWorld(routes: WorldRoutes, def: WorldPacket, session: Session, payload: unknown): void {
  (routes[def.name] as (s: Session, p: unknown) => void)(session, payload);
}
