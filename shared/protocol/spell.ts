/** Spells and combat, 0x06xx. */
import { t } from '../codec/index.js';
import { entityId, spellId } from './common.js';
import { definePacket } from './define.js';

export const CastSpell = definePacket({
  opcode: 0x0601,
  name: 'CastSpell',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  doc: 'Start casting a known spell at a target (the caster itself for self-heals).',
  fields: { spellId, targetId: entityId },
});

export const CancelCast = definePacket({
  opcode: 0x0602,
  name: 'CancelCast',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  doc: 'Stop the cast in progress (observers get SpellFailed "cancelled").',
  fields: {},
});

export const SpellStart = definePacket({
  opcode: 0x0603,
  name: 'SpellStart',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A caster began a cast with a cast bar of castTime ms.',
  fields: { casterId: entityId, spellId, targetId: entityId, castTime: t.u16 },
});

export const SpellGo = definePacket({
  opcode: 0x0604,
  name: 'SpellGo',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A cast completed: a projectile flies from caster to target and lands after travelTime ms.',
  fields: { casterId: entityId, spellId, targetId: entityId, travelTime: t.u16 },
});

export const SpellFailReason = [
  'interrupted',
  'cancelled',
  'unknownSpell',
  'cooldown',
  'noMana',
  'outOfRange',
  'badTarget',
  'dead',
  'busy',
  'lineOfSight',
] as const;
export type SpellFailReason = (typeof SpellFailReason)[number];

export const SpellFailed = definePacket({
  opcode: 0x0605,
  name: 'SpellFailed',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A cast was refused (sent to the caster) or interrupted (sent to observers).',
  fields: { casterId: entityId, spellId, reason: t.enumOf(SpellFailReason) },
});

export const CombatKind = ['damage', 'heal'] as const;

export const CombatEvent = definePacket({
  opcode: 0x0606,
  name: 'CombatEvent',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'Damage or healing landed; spellId 0 is a melee swing.',
  fields: {
    sourceId: entityId,
    targetId: entityId,
    spellId,
    kind: t.enumOf(CombatKind),
    amount: t.u32,
    crit: t.bool,
  },
});

const spellInfo = t.struct({
  id: spellId,
  name: t.string(32),
  kind: t.enumOf(CombatKind),
  castTime: t.u16,
  cooldown: t.u32,
  manaCost: t.u16,
  range: t.f32,
  projectileSpeed: t.f32,
  min: t.u16,
  max: t.u16,
  /** 0xRRGGBB */
  colour: t.u32,
});

export const SpellBook = definePacket({
  opcode: 0x0607,
  name: 'SpellBook',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The spells the character knows, with everything a client needs to show them.',
  fields: { spells: t.list(spellInfo, 32) },
});

export const Cooldown = definePacket({
  opcode: 0x0608,
  name: 'Cooldown',
  dir: 's2c',
  delivery: 'reliable',
  doc: "A spell of the client's is on cooldown for this many ms from now.",
  fields: { spellId, remaining: t.u32 },
});
