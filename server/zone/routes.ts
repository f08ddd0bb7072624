/**
 * The zone's routing table, derived from the packet definitions' declared dispatch targets: a
 * client packet defined with target 'zone' becomes one world input queued for its player's
 * zone (on the zone host, decoded from the gateway's PACKET record). (One with target 'world' goes to
 * a gateway handler: server/gateway/world-routes.ts.) The table is typed from the
 * definitions: a zone packet without an entry here, or an entry for a packet that is not
 * one, is a compile error (tests/protocol/types.test.ts checks the set).
 */
import type { PayloadOf } from '../../shared/protocol/index.js';
import {
  byOpcode,
  type AnyClientPacket,
  type ClientPacketByName,
  type ClientPacketNameFor,
} from '../../shared/protocol/registry.js';
import type { WorldInput } from '../world/index.js';

export type ZonePacketName = ClientPacketNameFor<'zone'>;

/** Makes the world input of a zone packet from its player's entity id and payload. */
export type ZoneRoutes = {
  readonly [N in ZonePacketName]: (
    entityId: number,
    payload: PayloadOf<ClientPacketByName<N>>,
    receivedAt: number,
  ) => WorldInput;
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

/** The client packet with this opcode if its target is 'zone' (a PACKET record names it so). */
export function zonePacketByOpcode(opcode: number): ZonePacket | undefined {
  const def = byOpcode(opcode);
  return def?.dir === 'c2s' && def.target === 'zone' ? (def as ZonePacket) : undefined;
}

/**
 * The world input for a zone packet, decoded from its payload as the client's frame carried it
 * (the gateway passes it on unread: this is its one decode). Bytes that are not such a payload
 * throw the DecodeError the dispatch core would have answered them with.
 */
export function zoneInput(
  def: ZonePacket,
  entityId: number,
  payload: Uint8Array,
  receivedAt: number,
): WorldInput {
  const route = zoneInputs[def.name] as (id: number, p: unknown, at: number) => WorldInput;
  return route(entityId, def.decode(payload), receivedAt);
}
