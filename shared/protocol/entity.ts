/** Entities entering and leaving view, health, death and respawn, 0x04xx. */
import { t } from '../codec/index.js';
import { characterName, EntityKind, entityId } from './common.js';
import { definePacket } from './define.js';

export const EntitySpawn = definePacket({
  opcode: 0x0401,
  name: 'EntitySpawn',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'An entity came into view (or into being) with its full state.',
  fields: {
    id: entityId,
    kind: t.enumOf(EntityKind),
    /** Mob template id; 0 for players. */
    template: t.u16,
    name: characterName,
    level: t.u8,
    health: t.u32,
    maxHealth: t.u32,
    x: t.f32,
    y: t.f32,
    facing: t.angle,
    speed: t.f32,
    appearance: t.u8,
    alive: t.bool,
  },
});

export const DespawnReason = ['outOfRange', 'left', 'corpse'] as const;

export const EntityDespawn = definePacket({
  opcode: 0x0402,
  name: 'EntityDespawn',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'An entity left view, left the world, or its corpse decayed.',
  fields: { id: entityId, reason: t.enumOf(DespawnReason) },
});

export const HealthUpdate = definePacket({
  opcode: 0x0403,
  name: 'HealthUpdate',
  dir: 's2c',
  delivery: 'reliable',
  doc: "An entity's health changed.",
  fields: { id: entityId, health: t.u32, maxHealth: t.u32 },
});

export const Death = definePacket({
  opcode: 0x0404,
  name: 'Death',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'An entity died; killer 0 when none.',
  fields: { id: entityId, killerId: entityId },
});

export const Respawn = definePacket({
  opcode: 0x0405,
  name: 'Respawn',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A dead player is alive again at this place (the graveyard) with this health.',
  fields: { id: entityId, x: t.f32, y: t.f32, health: t.u32, maxHealth: t.u32 },
});

export const PlayerStats = definePacket({
  opcode: 0x0406,
  name: 'PlayerStats',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The client's own mana, level and kill count, when they change.",
  fields: { mana: t.u32, maxMana: t.u32, level: t.u8, kills: t.u32 },
});
