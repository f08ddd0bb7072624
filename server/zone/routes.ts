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

/** The world input each zone packet becomes. */
type InputType = {
  readonly MoveInput: 'move';
  readonly CastSpell: 'cast';
  readonly CancelCast: 'cancelCast';
  readonly ChatSend: 'chat';
  readonly LogoutRequest: 'logout';
  readonly LogoutCancel: 'logoutCancel';
};
type InputOf<N extends ZonePacketName> = Extract<WorldInput, { type: InputType[N] }>;
type PayloadNamed<N extends ZonePacketName> = PayloadOf<ClientPacketByName<N>>;
/**
 * What a zone packet's world input holds beside its payload's fields (which the payload is
 * decoded into); `never` where the payload's fields are not that input's.
 */
type InputHead<N extends ZonePacketName> =
  PayloadNamed<N> extends Pick<InputOf<N>, keyof PayloadNamed<N> & keyof InputOf<N>>
    ? Omit<InputOf<N>, keyof PayloadNamed<N>>
    : never;

/** Makes the world input of a zone packet, less its payload's fields, from its player's entity id. */
export type ZoneRoutes = {
  readonly [N in ZonePacketName]: (entityId: number, receivedAt: number) => InputHead<N>;
};

export const zoneInputs: ZoneRoutes = {
  MoveInput: (entityId, receivedAt) => ({ type: 'move', entityId, receivedAt }),
  CastSpell: (entityId) => ({ type: 'cast', entityId }),
  CancelCast: (entityId) => ({ type: 'cancelCast', entityId }),
  ChatSend: (entityId, receivedAt) => ({ type: 'chat', entityId, receivedAt }),
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
 * The world input for a zone packet, its payload (as the client's frame carried it: the gateway
 * passes it on unread) decoded once, straight into it. Bytes that are not such a payload throw
 * the DecodeError the dispatch core would have answered them with.
 */
export function zoneInput(
  def: ZonePacket,
  entityId: number,
  payload: Uint8Array,
  receivedAt: number,
): WorldInput {
  const head = (zoneInputs[def.name] as (id: number, at: number) => object)(entityId, receivedAt);
  return def.decodeInto(payload, head) as WorldInput;
}
