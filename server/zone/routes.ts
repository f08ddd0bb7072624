/**
 * Routing tables derived from the packet definitions' declared dispatch targets. A client
 * packet defined with target 'zone' becomes one world input queued for its player's zone (on
 * the zone host, from the gateway's PACKET record); one with target 'world' goes to one
 * gateway handler (server/gateway/routing.ts). Both tables are typed from the
 * definitions: a packet given either target without an entry here, or an entry for a packet
 * that does not have it, is a compile error (tests/protocol/types.test.ts checks the sets).
 */
import type { PayloadOf } from '../../shared/protocol/index.js';
import type {
  AnyClientPacket,
  ClientPacketByName,
  ClientPacketNameFor,
} from '../../shared/protocol/registry.js';
import type { Session } from '../session/session.js';
import type { WorldInput } from '../world/index.js';

export type ZonePacketName = ClientPacketNameFor<'zone'>;
export type WorldPacketName = ClientPacketNameFor<'world'>;

/** Makes the world input of a zone packet from its player's entity id and payload. */
export type ZoneRoutes = {
  readonly [N in ZonePacketName]: (
    entityId: number,
    payload: PayloadOf<ClientPacketByName<N>>,
    receivedAt: number,
  ) => WorldInput;
};

/** Handles a world packet (it crosses zones: entering the world, whisper, who). */
export type WorldRoutes = {
  readonly [N in WorldPacketName]: (session: Session, payload: PayloadOf<ClientPacketByName<N>>) => void;
};

export const zoneInputs: ZoneRoutes = {
  MoveInput: (entityId, m, receivedAt) => ({ type: 'move', entityId, ...m, receivedAt }),
  CastSpell: (entityId, c) => ({ type: 'cast', entityId, spellId: c.spellId, targetId: c.targetId }),
  CancelCast: (entityId) => ({ type: 'cancelCast', entityId }),
  ChatSend: (entityId, c) => ({ type: 'chat', entityId, channel: c.channel, text: c.text }),
  LogoutRequest: (entityId) => ({ type: 'logout', entityId }),
  LogoutCancel: (entityId) => ({ type: 'logoutCancel', entityId }),
};

type ZonePacket = Extract<AnyClientPacket, { target: 'zone' }>;
type WorldPacket = Extract<AnyClientPacket, { target: 'world' }>;

/**
 * The world input for a zone packet. Its payload is the one decoded for `def` (the dispatch
 * core decodes by the same definition), which is the one correlation the types cannot follow.
 */
export function zoneInput(
  def: ZonePacket,
  entityId: number,
  payload: unknown,
  receivedAt: number,
): WorldInput {
  const route = zoneInputs[def.name] as (id: number, p: unknown, at: number) => WorldInput;
  return route(entityId, payload, receivedAt);
}

/** Runs a world packet's handler from `routes` (see zoneInput for the one cast). */
export function routeWorld(routes: WorldRoutes, def: WorldPacket, session: Session, payload: unknown): void {
  (routes[def.name] as (s: Session, p: unknown) => void)(session, payload);
}
