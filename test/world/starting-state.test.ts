/** A new character's state comes from the world data: where, at what level, with what. */
import path from 'node:path';
import { expect, it } from 'vitest';
import { levelStats, loadWorldData, startingState } from '../../server/world/index.js';

const data = loadWorldData(path.resolve(import.meta.dirname, '../../data'));

it("starts a new character at the first zone's spawn, with its level's full health and mana", () => {
  const zone = data.zones[0]!;
  const stats = levelStats(data.progression, data.character.level);
  expect(startingState(data)).toEqual({
    zone: zone.name,
    x: zone.playerSpawn.x,
    y: zone.playerSpawn.y,
    facing: 0,
    level: data.character.level,
    health: stats.maxHealth,
    mana: stats.maxMana,
    spells: data.character.spells,
    kills: 0,
    experience: 0,
  });
});

it('gives each new character its own spell list', () => {
  const first = startingState(data);
  first.spells.push(999);
  expect(startingState(data).spells).toEqual(data.character.spells);
});

it('refuses world data without a zone to start in', () => {
  expect(() => startingState({ ...data, zones: [] })).toThrow(/no zone/);
});
