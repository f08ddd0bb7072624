/** The character screen and entering the world, 0x02xx. */
import { t } from '../codec/index.js';
import { characterName, entityId, spellId, zoneName } from './common.js';
import { definePacket } from './define.js';

export const MAX_CHARACTERS = 8;

const characterSummary = t.struct({
  id: t.varint,
  name: characterName,
  level: t.u8,
  zone: zoneName,
  appearance: t.u8,
});

export const ListCharacters = definePacket({
  opcode: 0x0201,
  name: 'ListCharacters',
  dir: 'c2s',
  target: 'session',
  states: ['authenticated'],
  doc: "Ask for this account's characters.",
  fields: {},
});

export const CharacterList = definePacket({
  opcode: 0x0202,
  name: 'CharacterList',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The account's characters.",
  fields: { characters: t.list(characterSummary, MAX_CHARACTERS) },
});

export const CreateCharacter = definePacket({
  opcode: 0x0203,
  name: 'CreateCharacter',
  dir: 'c2s',
  target: 'session',
  states: ['authenticated'],
  doc: 'Create a character: 3-16 letters, unique ignoring case (ERR_BAD_NAME, ERR_NAME_TAKEN).',
  fields: { name: characterName, appearance: t.u8 },
});

export const CharacterCreated = definePacket({
  opcode: 0x0204,
  name: 'CharacterCreated',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The new character.',
  fields: { character: characterSummary },
});

export const DeleteCharacter = definePacket({
  opcode: 0x0205,
  name: 'DeleteCharacter',
  dir: 'c2s',
  target: 'session',
  states: ['authenticated'],
  doc: "Delete one of this account's characters.",
  fields: { characterId: t.varint },
});

export const CharacterDeleted = definePacket({
  opcode: 0x0206,
  name: 'CharacterDeleted',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The character is gone.',
  fields: { characterId: t.varint },
});

export const EnterWorldRequest = definePacket({
  opcode: 0x0207,
  name: 'EnterWorldRequest',
  dir: 'c2s',
  target: 'world',
  states: ['authenticated'],
  doc: 'Play a character: answered by ZoneInfo, SpellBook and EnterWorld.',
  fields: { characterId: t.varint },
});

export const EnterWorld = definePacket({
  opcode: 0x0208,
  name: 'EnterWorld',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The client's own entity in its zone; spawns of what is near follow.",
  fields: {
    zone: zoneName,
    entityId,
    name: characterName,
    x: t.f32,
    y: t.f32,
    facing: t.angle,
    /** Units per second. */
    speed: t.f32,
    level: t.u8,
    health: t.u32,
    maxHealth: t.u32,
    mana: t.u32,
    maxMana: t.u32,
    spells: t.list(spellId, 32),
    serverTime: t.f64,
    tick: t.u32,
    interestRadius: t.f32,
    /** The move epoch MoveInputs carry from now on (a new connection taking a character over starts one). */
    moveEpoch: t.u8,
  },
});

const obstacle = t.struct({ x: t.f32, y: t.f32, w: t.f32, h: t.f32 });
const neighbourZone = t.struct({ zone: zoneName, x: t.f32, y: t.f32, width: t.f32, height: t.f32 });

export const ZoneInfo = definePacket({
  opcode: 0x0209,
  name: 'ZoneInfo',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The zone's place and size in the world plane, its walls (axis-aligned rectangles) and the zones beside it, sent before EnterWorld.",
  fields: {
    zone: zoneName,
    /** The zone's corner: zones lie side by side in one plane, positions never translate. */
    x: t.f32,
    y: t.f32,
    width: t.f32,
    height: t.f32,
    /** The zone's walls, and its neighbours' walls near the border (what a player there can see). */
    obstacles: t.list(obstacle, 2048),
    /** The zones that share a stretch of border with this one: ground a player near it sees. */
    neighbours: t.list(neighbourZone, 16),
    /** Side of a spatial-grid cell, for clients that show the grid. */
    cellSize: t.f32,
    /** How long a dead player lies before standing up at the graveyard, in ms (a countdown). */
    respawnDelay: t.u32,
  },
});

export const ZoneChanged = definePacket({
  opcode: 0x020a,
  name: 'ZoneChanged',
  dir: 's2c',
  delivery: 'reliable',
  doc: "The client's own entity walked into the zone named here, now kept by that zone's host (after a ZoneInfo for it), or was given back to the zone it walked from (named here) when the zone beyond did not take it. The client keeps its view and its prediction; WorldUpdate ticks and times count on from tick and serverTime, motion references start afresh, and the next WorldUpdate spawns everything in view again (a spawn of an entity the client holds replaces its state).",
  fields: {
    zone: zoneName,
    tick: t.u32,
    serverTime: t.f64,
  },
});
