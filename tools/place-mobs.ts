/**
 * Places the mobs of data/zones/*.json by the level plan (server/world/gradient.ts): keeps
 * every spawn point where it is and chooses its kind and pack size from how far a character
 * walks to get there.
 *
 *   npx tsx tools/place-mobs.ts            prints the plan, writes nothing
 *   npx tsx tools/place-mobs.ts --write    rewrites the zones' spawns
 *   npx tsx tools/place-mobs.ts --svg f    draws the zones, the road and the mobs by level to f
 *
 * For each spawn point: its walking distance D from the starting zone's spawn (findPath over
 * every zone's walls), and where the road (the shortest walk from the spawn to the far edge of
 * the last zone) first comes within the mob's reach. The kind is the one whose levels sit
 * nearest the level a character has at D, among those whose highest level stays within
 * MAX_LEVELS_ABOVE of the level a character has where it first meets the mob (on the road,
 * or anywhere on a walk of D less the reach). Pack sizes are drawn from a seeded generator,
 * at most ROAD_PACK_LIMIT within reach of the road and PACK_LIMIT elsewhere.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITY_RADIUS, pathLength, type Vec2 } from '../shared/game/movement.js';
import { findPath } from '../shared/game/path.js';
import { mulberry32 } from '../shared/game/rng.js';
import {
  expectedLevel,
  MAX_LEVELS_ABOVE,
  mobReach,
  PACK_LIMIT,
  ROAD_PACK_LIMIT,
  roadDistanceWithin,
  shortestWalkToLine,
  worldGround,
} from '../server/world/gradient.js';
import { loadWorldData } from '../server/world/data.js';
import type { MobTemplate, WorldData } from '../server/world/types.js';

const DIR = 'data';
const SEED = 25;

interface Placed {
  zone: number;
  index: number;
  at: Vec2;
  walk: number;
  road: number | null;
  template: MobTemplate;
  count: number;
}

function choose(templates: MobTemplate[], walk: number, road: number | null, rng: () => number): MobTemplate {
  const here = expectedLevel(walk);
  const fits = templates.filter((t) => {
    const met = Math.min(road ?? Infinity, Math.max(0, walk - mobReach(t)));
    return t.maxLevel <= expectedLevel(met) + MAX_LEVELS_ABOVE;
  });
  if (fits.length === 0) throw new Error(`no mob kind fits a walk of ${walk}`);
  const off = (t: MobTemplate): number => Math.abs((t.minLevel + t.maxLevel) / 2 - here);
  fits.sort((a, b) => off(a) - off(b) || a.maxLevel - b.maxLevel);
  // Some variety: the runner-up now and then, when it is as near the level as a level away.
  const second = fits[1];
  if (second && off(second) <= off(fits[0]!) + 1 && rng() < 0.25) return second;
  return fits[0]!;
}

function packSize(onRoad: boolean, rng: () => number): number {
  const r = rng();
  const size = r < 0.72 ? 1 : r < 0.95 ? 2 : 3;
  return Math.min(size, onRoad ? ROAD_PACK_LIMIT : PACK_LIMIT);
}

export function plan(data: WorldData): { road: Vec2[]; start: Vec2; placed: Placed[] } {
  const { walls, bounds } = worldGround(data);
  const start = data.zones[0]!.playerSpawn;
  const road = shortestWalkToLine(walls, bounds, start, bounds.x + bounds.width - ENTITY_RADIUS - 1);
  if (!road) throw new Error('no walk from the spawn to the far edge of the world');
  const templates = [...data.templates.values()];
  const rng = mulberry32(SEED);
  const placed: Placed[] = [];
  data.zones.forEach((z, zi) => {
    z.spawns.forEach((s, index) => {
      const route = findPath(walls, start, s, ENTITY_RADIUS, bounds);
      // A point no body reaches (tucked against a wall) is as far as a straight line, at least.
      const walk = route ? pathLength(start, route) : Math.hypot(s.x - start.x, s.y - start.y);
      const reach = Math.max(...templates.map(mobReach));
      const near = roadDistanceWithin(start, road, s, reach);
      let template = choose(templates, walk, near, rng);
      // The road test is by this kind's own reach, which may be shorter: choose again with it.
      const own = roadDistanceWithin(start, road, s, mobReach(template));
      if (own !== near) template = choose(templates, walk, own, rng);
      const onRoad = roadDistanceWithin(start, road, s, mobReach(template)) !== null;
      placed.push({ zone: zi, index, at: s, walk, road: own, template, count: packSize(onRoad, rng) });
    });
  });
  // Every zone as populous as the first (they are built alike): trim or add off the road.
  const total = (zi: number): number => placed.filter((p) => p.zone === zi).reduce((n, p) => n + p.count, 0);
  for (let zi = 1; zi < data.zones.length; zi++) {
    const off = placed.filter((p) => p.zone === zi && p.road === null);
    for (let i = 0; total(zi) !== total(0) && i < off.length * PACK_LIMIT; i++) {
      const p = off[i % off.length]!;
      if (total(zi) > total(0) && p.count > 1) p.count--;
      else if (total(zi) < total(0) && p.count < PACK_LIMIT) p.count++;
    }
  }
  return { road, start, placed };
}

function svg(data: WorldData, road: Vec2[], start: Vec2, placed: Placed[]): string {
  const { walls, bounds } = worldGround(data);
  const s = 0.4;
  const colour = (lvl: number): string => `hsl(${Math.round(120 - (lvl - 1) * 13)}, 80%, 45%)`;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${bounds.width * s}" height="${bounds.height * s}" style="background:#fff">`,
    ...data.zones.map(
      (z) =>
        `<rect x="${z.x * s}" y="${z.y * s}" width="${z.width * s}" height="${z.height * s}" fill="none" stroke="#999"/>`,
    ),
    ...walls.map(
      (o) => `<rect x="${o.x * s}" y="${o.y * s}" width="${o.w * s}" height="${o.h * s}" fill="#333"/>`,
    ),
    ...placed.map(
      (p) =>
        `<circle cx="${p.at.x * s}" cy="${p.at.y * s}" r="${(2 + p.count * 1.5) * s * 2}" fill="${colour(p.template.maxLevel)}"/>` +
        `<text x="${p.at.x * s + 4}" y="${p.at.y * s + 3}" font-size="8">${p.template.maxLevel}</text>`,
    ),
    `<polyline fill="none" stroke="blue" stroke-width="2" points="${[start, ...road].map((p) => `${p.x * s},${p.y * s}`).join(' ')}"/>`,
    ...data.zones.map(
      (z) => `<circle cx="${z.playerSpawn.x * s}" cy="${z.playerSpawn.y * s}" r="5" fill="blue"/>`,
    ),
    ...data.zones.map(
      (z) =>
        `<rect x="${z.graveyard.x * s - 4}" y="${z.graveyard.y * s - 4}" width="8" height="8" fill="purple"/>`,
    ),
    '</svg>',
  ];
  return out.join('\n');
}

function main(): void {
  const args = process.argv.slice(2);
  const data = loadWorldData(DIR);
  const { road, start, placed } = plan(data);
  const border = data.zones[1]?.x;
  let walked = 0;
  let prev = start;
  for (const p of road) {
    walked += Math.hypot(p.x - prev.x, p.y - prev.y);
    prev = p;
  }
  console.log(
    `road: ${[start, ...road].map((p) => `${Math.round(p.x)},${Math.round(p.y)}`).join(' → ')} (${Math.round(walked)} units)`,
  );
  if (border !== undefined) {
    const crossing = roadDistanceWithin(
      start,
      road,
      { x: border, y: road.find((p) => p.x >= border)?.y ?? 0 },
      1,
    );
    console.log(
      `border at x ${border}: about ${crossing === null ? '?' : Math.round(crossing)} units, expected level ${crossing === null ? '?' : expectedLevel(crossing)}`,
    );
  }
  data.zones.forEach((z, zi) => {
    const mine = placed.filter((p) => p.zone === zi);
    const byKind = new Map<string, number>();
    for (const p of mine) byKind.set(p.template.name, (byKind.get(p.template.name) ?? 0) + p.count);
    console.log(
      `${z.name}: ${mine.reduce((n, p) => n + p.count, 0)} mobs at ${mine.length} points; ` +
        [...byKind].map(([k, n]) => `${k} ${n}`).join(', '),
    );
  });
  const svgAt = args.indexOf('--svg');
  if (svgAt >= 0) writeFileSync(args[svgAt + 1]!, svg(data, road, start, placed));
  if (args.includes('--write')) {
    const files = data.zones.map((z) => z.name.toLowerCase() + '.json');
    files.forEach((f, zi) => {
      const file = join(DIR, 'zones', f);
      const json = JSON.parse(readFileSync(file, 'utf8')) as {
        spawns: { template: number; x: number; y: number; count: number }[];
      };
      json.spawns = placed
        .filter((p) => p.zone === zi)
        .map((p) => ({ template: p.template.id, x: p.at.x, y: p.at.y, count: p.count }));
      writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
    });
    console.log(`wrote ${files.join(', ')}`);
  }
}

main();
