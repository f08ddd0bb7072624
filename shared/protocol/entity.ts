/**
 * Replication, 0x04xx: one WorldUpdate frame per client per tick carries everything it learns
 * about the entities in its view, as entity records; the client's own stats and experience;
 * level-ups, seen by everyone in view.
 */
import { t } from '../codec/index.js';
import { entityId } from './common.js';
import { HEADER_SIZE, MAX_FRAME_SIZE } from '../codec/frame.js';
import { definePacket } from './define.js';
import { entityRecords } from './records.js';

/** Most bytes of a WorldUpdate payload before its records: two varints. */
export const WORLD_UPDATE_HEAD_MAX = 10;

export const WorldUpdate = definePacket({
  opcode: 0x0401,
  name: 'WorldUpdate',
  dir: 's2c',
  delivery: 'reliable',
  doc: "One tick's entity records for this client (spawns, movement states, paths, despawns, health, deaths), first in the tick's batch; the records happened at its time. `tick` and `time` are counted from the previous WorldUpdate on the connection (the first from EnterWorld's `tick` and `serverTime`). Motion blocks may be skipped for a client that is behind, which then gets its view's full motion state once it catches up.",
  fields: {
    /** Ticks since the previous WorldUpdate (or EnterWorld). */
    tick: t.varint,
    /** Server ms since the previous WorldUpdate (or EnterWorld's serverTime). */
    time: t.varint,
    records: entityRecords(MAX_FRAME_SIZE - HEADER_SIZE - WORLD_UPDATE_HEAD_MAX),
  },
});

export const PlayerStats = definePacket({
  opcode: 0x0406,
  name: 'PlayerStats',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The client's own mana, level, kill count and experience, when they change.",
  fields: {
    mana: t.u32,
    maxMana: t.u32,
    level: t.u8,
    kills: t.u32,
    /** Experience into the current level. */
    experience: t.u32,
    /** Experience the current level needs to the next; 0 at the highest level. */
    experienceNeeded: t.u32,
  },
});

export const LevelUp = definePacket({
  opcode: 0x0407,
  name: 'LevelUp',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'An entity in view (or the client itself) reached a level; its new max health follows as a health record, its own new stats as PlayerStats.',
  fields: { entityId, level: t.u8 },
});

export const ExperienceGain = definePacket({
  opcode: 0x0408,
  name: 'ExperienceGain',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The client earned experience for a kill (victimId: the mob). Sent before the kill's PlayerStats (and LevelUp).",
  fields: { victimId: entityId, amount: t.u32 },
});
