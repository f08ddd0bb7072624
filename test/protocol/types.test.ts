import { describe, expectTypeOf, it } from 'vitest';
import { t } from '../../shared/codec/index.js';
import type { Infer, InferFields } from '../../shared/codec/index.js';
import {
  CastSpell,
  CharacterList,
  ChatMessage,
  ChatSend,
  definePacket,
  Hello,
  ListCharacters,
  LoginOk,
  MoveInput,
  Whisper,
  WorldUpdate,
} from '../../shared/protocol/index.js';
import type { EntityRecord, PayloadOf, SpawnRecord } from '../../shared/protocol/index.js';
import type { ClientPacketName, ServerPacketName } from '../../shared/protocol/registry.js';
import { zoneInputs } from '../../server/zone/routes.js';
import type { WorldPacketName, WorldRoutes } from '../../server/gateway/world-routes.js';
import type { WorldInput } from '../../server/world/index.js';
import type { ZonePacketName, ZoneRoutes } from '../../server/zone/routes.js';

// A packet that is never registered, for field types no real packet uses yet.
const Probe = definePacket({
  opcode: 0xfff0,
  name: 'Probe',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'Type test only.',
  fields: {
    note: t.optional(t.string(20)),
    at: t.optional(t.struct({ x: t.f32, y: t.f32 })),
    tags: t.list(t.enumOf(['a', 'b'] as const), 4),
  },
});

describe('inferred payload types', () => {
  it('types an enum field as the union of its values', () => {
    expectTypeOf<PayloadOf<typeof Hello>['clientKind']>().toEqualTypeOf<'browser' | 'native' | 'bot'>();
    expectTypeOf<PayloadOf<typeof ChatMessage>['channel']>().toEqualTypeOf<
      'say' | 'zone' | 'whisper' | 'system'
    >();
    expectTypeOf<PayloadOf<typeof ChatSend>['channel']>().toEqualTypeOf<'say' | 'zone'>();
  });

  it('types every field of MoveInput', () => {
    expectTypeOf<PayloadOf<typeof MoveInput>>().toEqualTypeOf<{
      seq: number;
      x: number;
      y: number;
      facing: number;
      moving: boolean;
      speed: number;
      clientTime: number;
      epoch: number;
    }>();
  });

  it('types a records field as a list of entity records, discriminated by kind', () => {
    expectTypeOf<PayloadOf<typeof WorldUpdate>>().toEqualTypeOf<{
      tick: number;
      time: number;
      records: EntityRecord[];
    }>();
    expectTypeOf<EntityRecord['kind']>().toEqualTypeOf<
      'move' | 'path' | 'spawn' | 'despawn' | 'health' | 'death' | 'respawn' | 'moveBy' | 'pathHere'
    >();
    expectTypeOf<Extract<EntityRecord, { kind: 'spawn' }>>().toEqualTypeOf<SpawnRecord>();
    expectTypeOf<SpawnRecord['entity']>().toEqualTypeOf<'player' | 'mob'>();
    expectTypeOf<Extract<EntityRecord, { kind: 'move' }>['speed']>().toEqualTypeOf<number | undefined>();
  });

  it('types bytes as Uint8Array and lists of structs as arrays of objects', () => {
    expectTypeOf<PayloadOf<typeof LoginOk>['resumeToken']>().toEqualTypeOf<Uint8Array>();
    expectTypeOf<PayloadOf<typeof CharacterList>['characters']>().toEqualTypeOf<
      { id: number; name: string; level: number; zone: string; appearance: number }[]
    >();
  });

  it('includes undefined in optional fields', () => {
    expectTypeOf(Probe.name).toEqualTypeOf<'Probe'>();
    expectTypeOf<PayloadOf<typeof Probe>['note']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<PayloadOf<typeof Probe>['at']>().toEqualTypeOf<{ x: number; y: number } | undefined>();
    expectTypeOf<PayloadOf<typeof Probe>['tags']>().toEqualTypeOf<('a' | 'b')[]>();
    expectTypeOf<Infer<ReturnType<typeof t.optional<number>>>>().toEqualTypeOf<number | undefined>();
  });

  it('types a packet without fields as an empty object', () => {
    expectTypeOf<keyof PayloadOf<typeof ListCharacters>>().toEqualTypeOf<never>();
  });

  it('types encode and decode with the payload', () => {
    expectTypeOf(MoveInput.encode).parameter(0).toEqualTypeOf<PayloadOf<typeof MoveInput>>();
    expectTypeOf(MoveInput.decode).returns.toEqualTypeOf<PayloadOf<typeof MoveInput>>();
    expectTypeOf(MoveInput.encode).returns.toEqualTypeOf<Uint8Array>();
    expectTypeOf<InferFields<typeof MoveInput.fields>>().toEqualTypeOf<PayloadOf<typeof MoveInput>>();
  });

  it('keeps literal names and directions', () => {
    expectTypeOf(Hello.name).toEqualTypeOf<'Hello'>();
    expectTypeOf(Hello.dir).toEqualTypeOf<'c2s'>();
    expectTypeOf<'Hello'>().toExtend<ClientPacketName>();
    expectTypeOf<'Welcome'>().toExtend<ServerPacketName>();
    expectTypeOf<'Hello'>().not.toExtend<ServerPacketName>();
  });

  it('rejects wrong payloads at compile time', () => {
    // @ts-expect-error 'robot' is not a client kind
    Hello.encode.bind(null, { protocolVersion: 1, clientKind: 'robot', clientName: 'x' });
    // @ts-expect-error clientName is missing
    Hello.encode.bind(null, { protocolVersion: 1, clientKind: 'bot' });
    // @ts-expect-error moving is a boolean, not a number
    expectTypeOf<PayloadOf<typeof MoveInput>['moving']>().toEqualTypeOf<number>();
    // @ts-expect-error a move record has no health
    WorldUpdate.encode.bind(null, { tick: 1, time: 0, records: [{ kind: 'move', id: 1, health: 5 }] });
  });
});

describe('routing tables from declared targets', () => {
  it('derives the zone and world packets from their definitions', () => {
    expectTypeOf<ZonePacketName>().toEqualTypeOf<
      'MoveInput' | 'CastSpell' | 'CancelCast' | 'ChatSend' | 'LogoutRequest' | 'LogoutCancel'
    >();
    expectTypeOf<WorldPacketName>().toEqualTypeOf<'EnterWorldRequest' | 'Whisper' | 'Who'>();
  });

  it('refuses a zone table missing a packet, or naming one that is not a zone packet', () => {
    const { MoveInput: _dropped, ...rest } = zoneInputs;
    // @ts-expect-error MoveInput has target 'zone': its route is required
    const missing: ZoneRoutes = rest;
    // @ts-expect-error Whisper's target is 'world', not 'zone'
    const extra: ZoneRoutes = { ...zoneInputs, Whisper: () => ({ type: 'logout', entityId: 1 }) };
    expectTypeOf(missing).not.toBeAny();
    expectTypeOf(extra).not.toBeAny();
  });

  it('types each route from its own packet', () => {
    // A zone packet's route makes its world input less the payload's fields, decoded into it.
    expectTypeOf<ReturnType<ZoneRoutes['CastSpell']>>().toEqualTypeOf<{ type: 'cast'; entityId: number }>();
    expectTypeOf<ReturnType<ZoneRoutes['CastSpell']> & PayloadOf<typeof CastSpell>>().toExtend<WorldInput>();
    expectTypeOf<Parameters<WorldRoutes['Whisper']>[1]>().toEqualTypeOf<PayloadOf<typeof Whisper>>();
  });
});
