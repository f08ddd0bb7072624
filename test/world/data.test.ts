import { describe, expect, it } from 'vitest';
import { blocked, distance, ENTITY_RADIUS } from '../../shared/game/movement.js';
import {
  DataError,
  loadWorldData,
  parseWorldData,
  SPAWN_SAFE_RADIUS,
  type WorldSources,
} from '../../server/world/index.js';

function sources(): WorldSources {
  return {
    spells: {
      file: 'data/spells.json',
      json: {
        spells: [
          {
            id: 1,
            name: 'Bolt',
            kind: 'damage',
            castTime: 0,
            cooldown: 0,
            manaCost: 1,
            range: 100,
            projectileSpeed: 0,
            min: 1,
            max: 2,
            colour: '#ff0000',
          },
        ],
      },
    },
    mobs: {
      file: 'data/mobs.json',
      json: {
        templates: [
          {
            id: 1,
            name: 'Rat',
            minLevel: 1,
            maxLevel: 2,
            health: 10,
            speed: 50,
            wanderRadius: 10,
            aggroRadius: 10,
            meleeMin: 1,
            meleeMax: 2,
            swingTime: 1000,
            respawnTime: 1000,
            appearance: 1,
            colour: 0x00ff00,
          },
        ],
      },
    },
    character: {
      file: 'data/character.json',
      json: { level: 1, speed: 120, spells: [1] },
    },
    progression: {
      file: 'data/progression.json',
      json: {
        levels: [
          { level: 1, experience: 100, health: 100, mana: 50, healthRegen: 1, manaRegen: 2, spellPower: 0 },
          { level: 2, experience: 150, health: 120, mana: 60, healthRegen: 1, manaRegen: 2, spellPower: 5 },
          { level: 3, experience: 0, health: 140, mana: 70, healthRegen: 2, manaRegen: 3, spellPower: 10 },
        ],
        kill: { base: 45, perMobLevel: 5, aboveBonus: 0.05, aboveCap: 4, greyLevels: 5 },
      },
    },
    rules: { file: 'data/rules.json', json: structuredClone(loadWorldData('data').rules) },
    zones: [
      {
        file: 'data/zones/a.json',
        json: {
          name: 'A',
          width: 500,
          height: 500,
          obstacles: [{ x: 200, y: 200, w: 50, h: 50 }],
          playerSpawn: { x: 50, y: 50 },
          graveyard: { x: 60, y: 60 },
          spawns: [{ template: 1, x: 400, y: 400, count: 2 }],
        },
      },
    ],
  };
}

function errorOf(edit: (s: WorldSources) => void): string {
  const s = sources();
  edit(s);
  try {
    parseWorldData(s);
  } catch (err) {
    expect(err).toBeInstanceOf(DataError);
    return (err as Error).message;
  }
  return 'no error';
}

const mobs = (s: WorldSources): any => s.mobs.json;
const levels = (s: WorldSources): any[] => (s.progression.json as any).levels;
const zone = (s: WorldSources): any => s.zones[0]!.json;

describe('world data validation', () => {
  it('accepts a valid set', () => {
    const d = parseWorldData(sources());
    expect(d.templates.get(1)?.name).toBe('Rat');
    expect(d.spells.get(1)?.colour).toBe(0xff0000);
  });

  it('gives a rules file without cellHysteresis a quarter of a cell', () => {
    const s = sources();
    delete (s.rules.json as any).cellHysteresis;
    const data = parseWorldData(s);
    expect(data.rules.cellHysteresis).toBe(data.rules.cellSize / 4);
  });

  it('names the file and field of a bad value', () => {
    expect(errorOf((s) => (mobs(s).templates[0].speed = -3))).toBe(
      'data/mobs.json: templates[0].speed: expected a positive number',
    );
    expect(errorOf((s) => ((s.spells.json as any).spells[0].kind = 'poison'))).toBe(
      'data/spells.json: spells[0].kind: expected one of damage, heal',
    );
    expect(errorOf((s) => delete (s.character.json as any).speed)).toBe(
      'data/character.json: speed: expected a positive number',
    );
    expect(errorOf((s) => ((s.rules.json as any).interestRadius = 'far'))).toBe(
      'data/rules.json: interestRadius: expected a positive number',
    );
    expect(errorOf((s) => ((s.rules.json as any).cellHysteresis = 40))).toBe(
      'data/rules.json: cellHysteresis: expected a number <= cellSize / 2',
    );
    expect(errorOf((s) => ((s.spells.json as any).spells[0].colour = 'red'))).toMatch(
      /^data\/spells\.json: spells\[0\]\.colour: expected a colour/,
    );
  });

  it('reads the level table and the kill experience rule', () => {
    const d = parseWorldData(sources());
    expect(d.progression.levels.map((l) => [l.level, l.experience, l.maxHealth, l.maxMana])).toEqual([
      [1, 100, 100, 50],
      [2, 150, 120, 60],
      [3, 0, 140, 70],
    ]);
    expect(d.progression.kill.greyLevels).toBe(5);
  });

  it('refuses a level table out of order, without an end, or shrinking', () => {
    expect(errorOf((s) => (levels(s)[1].level = 3))).toBe(
      'data/progression.json: levels[1].level: expected 2 (levels go 1, 2, 3, ... in order)',
    );
    expect(errorOf((s) => (levels(s)[2].experience = 200))).toBe(
      'data/progression.json: levels[2].experience: expected 0 at the highest level (there is no next)',
    );
    expect(errorOf((s) => (levels(s)[0].experience = 0))).toBe(
      'data/progression.json: levels[0].experience: expected a positive integer (experience to the next level)',
    );
    expect(errorOf((s) => (levels(s)[2].health = 110))).toBe(
      "data/progression.json: levels[2].health: expected a number >= level 2's",
    );
    expect(errorOf((s) => (levels(s)[1].spellPower = -1))).toBe(
      'data/progression.json: levels[1].spellPower: expected a number >= 0',
    );
    expect(errorOf((s) => ((s.progression.json as any).levels = []))).toBe(
      'data/progression.json: levels: expected at least 1 item(s)',
    );
    expect(errorOf((s) => delete (s.progression.json as any).kill.greyLevels)).toBe(
      'data/progression.json: kill.greyLevels: expected a number',
    );
    expect(errorOf((s) => ((s.character.json as any).level = 4))).toBe(
      'data/character.json: level: expected at most 3 (the highest level in progression.json)',
    );
  });

  it('ships levels 1 to at least 10, each needing more experience than the one before', () => {
    for (const dir of ['data', 'data/test']) {
      const { levels } = loadWorldData(dir).progression;
      expect(levels.length).toBeGreaterThanOrEqual(10);
      const spans = levels.slice(0, -1).map((l) => l.experience);
      expect(spans).toEqual([...spans].sort((a, b) => a - b));
      expect(levels.at(-1)!.spellPower).toBeGreaterThan(levels[0]!.spellPower);
    }
  });

  it('checks references and placement', () => {
    expect(errorOf((s) => (zone(s).spawns[0].template = 9))).toBe(
      'data/zones/a.json: spawns[0].template: no mob template 9 in mobs.json',
    );
    expect(errorOf((s) => ((s.character.json as any).spells = [7]))).toBe(
      'data/character.json: spells[0]: no spell 7 in spells.json',
    );
    expect(errorOf((s) => Object.assign(zone(s).spawns[0], { x: 220, y: 220 }))).toBe(
      'data/zones/a.json: spawns[0]: is inside an obstacle',
    );
    expect(errorOf((s) => Object.assign(zone(s).spawns[0], { x: 80, y: 80 }))).toBe(
      `data/zones/a.json: spawns[0]: is within ${SPAWN_SAFE_RADIUS} of the player spawn`,
    );
    expect(errorOf((s) => (zone(s).graveyard = { x: 210, y: 210 }))).toBe(
      'data/zones/a.json: graveyard: is inside an obstacle',
    );
    expect(errorOf((s) => mobs(s).templates.push({ ...mobs(s).templates[0] }))).toBe(
      'data/mobs.json: templates[1].id: duplicate id 1',
    );
  });

  it('reports a missing file and bad JSON with the file name', () => {
    expect(() => loadWorldData('data/nowhere')).toThrow(/data\/nowhere\/zones: cannot read/);
  });
});

describe('shipped data', () => {
  for (const dir of ['data', 'data/test']) {
    it(`${dir} loads, and no mob spawns in a wall or on the player spawn`, () => {
      const d = loadWorldData(dir);
      for (const z of d.zones) {
        for (const s of z.spawns) {
          expect(blocked(s, z.obstacles, ENTITY_RADIUS)).toBe(false);
          expect(distance(s, z.playerSpawn)).toBeGreaterThanOrEqual(SPAWN_SAFE_RADIUS);
        }
      }
    });
  }

  it('the main zone is about 2,000 × 2,000 with dozens of obstacles, 200+ spawn points, 4+ templates and spells', () => {
    const d = loadWorldData('data');
    const z = d.zones[0]!;
    expect(z.width).toBeGreaterThanOrEqual(2000);
    expect(z.obstacles.length).toBeGreaterThanOrEqual(24);
    expect(z.spawns.length).toBeGreaterThanOrEqual(200);
    expect(new Set(z.spawns.map((s) => s.template)).size).toBeGreaterThanOrEqual(4);
    expect(d.spells.size).toBeGreaterThanOrEqual(4);
    expect([...d.spells.values()].some((s) => s.castTime === 0)).toBe(true);
  });
});
