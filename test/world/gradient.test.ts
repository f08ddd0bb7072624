/**
 * The shipped world's level plan (server/world/gradient.ts), checked over data/: from the
 * spawn a body can walk to the border and on across Ashmoor, nothing that can reach that road
 * is more than MAX_LEVELS_ABOVE over the level a character has when it gets there, packs stay
 * small, and mob levels rise with the walk from the spawn.
 */
import { describe, expect, it } from 'vitest';
import {
  blocked,
  ENTITY_RADIUS,
  insideZone,
  pathLength,
  segmentBlocked,
  type Vec2,
} from '../../shared/game/movement.js';
import { findPath } from '../../shared/game/path.js';
import {
  expectedLevel,
  MAX_LEVELS_ABOVE,
  mobReach,
  PACK_LIMIT,
  ROAD_PACK_LIMIT,
  roadDistanceWithin,
  shortestWalkToLine,
  UNITS_PER_LEVEL,
  worldGround,
} from '../../server/world/gradient.js';
import { loadWorldData } from '../../server/world/index.js';

const data = loadWorldData('data');
const [greenvale, ashmoor] = data.zones;
const { walls, bounds } = worldGround(data);
const spawn = greenvale!.playerSpawn;
const border = ashmoor!.x;
const spawns = data.zones.flatMap((z) =>
  z.spawns.map((s) => ({ zone: z.name, ...s, template: data.templates.get(s.template)! })),
);

/** Where on the road a mob at each spawn point first reaches it, and how far above the walker it is then. */
function meetings(road: Vec2[]): { at: string; met: number; level: number; over: number; count: number }[] {
  const out = [];
  for (const s of spawns) {
    const met = roadDistanceWithin(spawn, road, s, mobReach(s.template));
    if (met === null) continue;
    const level = expectedLevel(met);
    out.push({
      at: `${s.zone} ${s.template.name} ${s.x},${s.y}`,
      met: Math.round(met),
      level,
      over: s.template.maxLevel - level,
      count: s.count,
    });
  }
  return out;
}

function walkable(from: Vec2, route: Vec2[]): boolean {
  let prev = from;
  for (const p of route) {
    if (!insideZone(p, bounds) || blocked(p, walls) || segmentBlocked(prev, p, walls, ENTITY_RADIUS))
      return false;
    prev = p;
  }
  return true;
}

describe('the road from the spawn to the border', () => {
  // Inside Greenvale, one step short of the line: the shortest walk there from the spawn.
  const road = shortestWalkToLine(
    walls,
    { ...bounds, width: border - bounds.x },
    spawn,
    border - ENTITY_RADIUS - 1,
  );

  it('exists, and a body of the size the server checks walks every leg of it clear of the walls', () => {
    expect(road).not.toBeNull();
    expect(walkable(spawn, road!)).toBe(true);
  });

  it('brings a character that fights what it meets to the border at level 5 or 6', () => {
    const length = pathLength(spawn, road!);
    expect(expectedLevel(length)).toBeGreaterThanOrEqual(5);
    expect(expectedLevel(length)).toBeLessThanOrEqual(6);
  });

  it(`passes no mob more than ${MAX_LEVELS_ABOVE} levels above the level a character has where the mob can reach it`, () => {
    const met = meetings(road!);
    // The road is not empty: there is something to fight all the way.
    expect(met.length).toBeGreaterThan(20);
    expect(met.filter((m) => m.over > MAX_LEVELS_ABOVE)).toEqual([]);
  });

  it(`meets packs of at most ${ROAD_PACK_LIMIT}`, () => {
    expect(meetings(road!).filter((m) => m.count > ROAD_PACK_LIMIT)).toEqual([]);
  });
});

describe('the road on across Ashmoor', () => {
  const road = shortestWalkToLine(walls, bounds, spawn, bounds.x + bounds.width - ENTITY_RADIUS - 1);

  it('crosses the border and reaches the far edge of Ashmoor', () => {
    expect(road).not.toBeNull();
    expect(walkable(spawn, road!)).toBe(true);
    expect(road!.at(-1)!.x).toBeGreaterThan(ashmoor!.x + ashmoor!.width - 2 * ENTITY_RADIUS);
  });

  it(`passes no mob more than ${MAX_LEVELS_ABOVE} levels above the walker, nor packs over ${ROAD_PACK_LIMIT}`, () => {
    const met = meetings(road!);
    expect(met.filter((m) => m.over > MAX_LEVELS_ABOVE || m.count > ROAD_PACK_LIMIT)).toEqual([]);
  });
});

describe('the mobs of the world', () => {
  it(`stand in packs of at most ${PACK_LIMIT}, and each zone keeps 200 or more`, () => {
    expect(spawns.filter((s) => s.count > PACK_LIMIT)).toEqual([]);
    for (const z of data.zones) expect(z.spawns.reduce((n, s) => n + s.count, 0)).toBeGreaterThanOrEqual(200);
  });

  it('are for levels up to 6 or so in Greenvale and 6 to 10 in Ashmoor', () => {
    const levels = (zone: string) => spawns.filter((s) => s.zone === zone).map((s) => s.template);
    expect(Math.max(...levels('Greenvale').map((t) => t.maxLevel))).toBeLessThanOrEqual(7);
    expect(Math.min(...levels('Greenvale').map((t) => t.minLevel))).toBe(1);
    expect(Math.max(...levels('Ashmoor').map((t) => t.maxLevel))).toBe(10);
    // Most of Ashmoor is for 6 and over: only a few beasts of the border stray in below it.
    const low = levels('Ashmoor').filter((t) => t.minLevel < 6).length;
    expect(low / levels('Ashmoor').length).toBeLessThan(0.05);
  });

  it('rise in level with the walk from the spawn', () => {
    // The mean of the mobs' middle levels per band of UNITS_PER_LEVEL walked never falls.
    const bands: number[][] = [];
    for (const s of spawns) {
      const route = findPath(walls, spawn, s, ENTITY_RADIUS, bounds);
      if (!route) continue;
      const band = Math.floor(pathLength(spawn, route) / UNITS_PER_LEVEL);
      (bands[band] ??= []).push((s.template.minLevel + s.template.maxLevel) / 2);
    }
    const means = bands.filter((b) => b.length > 0).map((b) => b.reduce((x, y) => x + y, 0) / b.length);
    expect(means.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < means.length; i++) expect(means[i]!).toBeGreaterThanOrEqual(means[i - 1]!);
    expect(means[0]!).toBeLessThan(2);
    expect(means.at(-1)!).toBeGreaterThan(8);
  });
});
