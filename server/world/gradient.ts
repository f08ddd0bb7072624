/**
 * The world's level plan: how strong a character is expected to be where it stands, and what
 * a mob may be near the road it walks. The data check over data/ (test/world/gradient.test.ts)
 * and the tool that places mobs (tools/place-mobs.ts) read the same numbers.
 *
 * A new character fighting what is in front of it gains a level per UNITS_PER_LEVEL units
 * walked along the road from the starting zone's spawn: level 1 at the spawn, about 6 at the
 * Greenvale/Ashmoor border (some 1,800 units of road), and on to MAX_PLANNED_LEVEL in
 * Ashmoor. Along the road no mob that can reach it (its wander radius plus its aggro radius)
 * is more than MAX_LEVELS_ABOVE over the level a character has when it gets there, and no
 * spawn point holds more than PACK_LIMIT mobs (ROAD_PACK_LIMIT where it reaches the road).
 */
import {
  distance,
  ENTITY_RADIUS,
  pathLength,
  type Rect,
  type Vec2,
  type ZoneBounds,
} from '../../shared/game/movement.js';
import { findPath } from '../../shared/game/path.js';
import type { MobTemplate, WorldData } from './types.js';

/** Road units walked per level gained, at the pace of a character fighting what it meets. */
export const UNITS_PER_LEVEL = 360;
/** The highest level the plan leads to (the far side of Ashmoor). */
export const MAX_PLANNED_LEVEL = 10;
/** A mob within reach of the road is at most this many levels above the expected level. */
export const MAX_LEVELS_ABOVE = 2;
/** The most mobs one spawn point holds. */
export const PACK_LIMIT = 3;
/** The most mobs a spawn point within reach of the road holds. */
export const ROAD_PACK_LIMIT = 2;

/** The level a character has after walking `roadDistance` units of the road from the spawn. */
export function expectedLevel(roadDistance: number): number {
  return Math.min(MAX_PLANNED_LEVEL, 1 + Math.floor(Math.max(0, roadDistance) / UNITS_PER_LEVEL));
}

/** How far from its spawn point a mob may notice a character: it wanders, then aggroes. */
export function mobReach(t: MobTemplate): number {
  return t.wanderRadius + t.aggroRadius;
}

/** The nearest point to `p` on the segment a-b. */
function nearestOnSegment(p: Vec2, a: Vec2, b: Vec2): { at: Vec2; t: number } {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2));
  return { at: { x: a.x + dx * t, y: a.y + dy * t }, t };
}

/**
 * How far along the road (from `start` through `points`) a walker first comes within `reach`
 * of `p`, or null if it never does.
 */
export function roadDistanceWithin(
  start: Vec2,
  points: readonly Vec2[],
  p: Vec2,
  reach: number,
): number | null {
  let walked = 0;
  let a = start;
  for (const b of points) {
    const seg = distance(a, b);
    const near = nearestOnSegment(p, a, b);
    const d = distance(near.at, p);
    if (d <= reach) {
      // Back from the nearest point to where the segment first enters the circle.
      const back = Math.sqrt(Math.max(0, reach * reach - d * d));
      return walked + Math.max(0, near.t * seg - back);
    }
    walked += seg;
    a = b;
  }
  return null;
}

/** Every zone's walls, and the rectangle the zones lie in (side by side, they fill it). */
export function worldGround(data: WorldData): {
  walls: Rect[];
  bounds: Required<ZoneBounds>;
} {
  const x = Math.min(...data.zones.map((z) => z.x));
  const y = Math.min(...data.zones.map((z) => z.y));
  const right = Math.max(...data.zones.map((z) => z.x + z.width));
  const bottom = Math.max(...data.zones.map((z) => z.y + z.height));
  return {
    walls: data.zones.flatMap((z) => z.obstacles),
    bounds: { x, y, width: right - x, height: bottom - y },
  };
}

/**
 * The shortest walk (findPath's waypoints) from `from` to the vertical line x = `lineX`, tried
 * every 10 units along it, or null when no point of the line can be reached.
 */
export function shortestWalkToLine(
  walls: Rect[],
  bounds: Required<ZoneBounds>,
  from: Vec2,
  lineX: number,
): Vec2[] | null {
  let best: Vec2[] | null = null;
  let bestLen = Infinity;
  for (let y = bounds.y + ENTITY_RADIUS + 1; y < bounds.y + bounds.height - ENTITY_RADIUS; y += 10) {
    const route = findPath(walls, from, { x: lineX, y }, ENTITY_RADIUS, bounds);
    if (!route) continue;
    const len = pathLength(from, route);
    if (len < bestLen) {
      bestLen = len;
      best = route;
    }
  }
  return best;
}
