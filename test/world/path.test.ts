import { describe, expect, it } from 'vitest';
import {
  blocked,
  distance,
  ENTITY_RADIUS,
  pathLength,
  segmentBlocked,
  type Vec2,
} from '../../shared/game/movement.js';
import { findPath, nearestClear, standsClear } from '../../shared/game/path.js';
import { mulberry32 } from '../../shared/game/rng.js';
import { loadWorldData } from '../../server/world/index.js';

/** Every leg of the route is one a body of half-size `r` slides along without touching a wall. */
function walkable(
  walls: Parameters<typeof findPath>[0],
  from: Vec2,
  route: Vec2[],
  r = ENTITY_RADIUS,
): boolean {
  let prev = from;
  for (const p of route) {
    if (blocked(p, walls, r) || segmentBlocked(prev, p, walls, r)) return false;
    prev = p;
  }
  return true;
}

describe('findPath', () => {
  it('goes straight when nothing is in the way', () => {
    expect(findPath([{ x: 500, y: 500, w: 10, h: 10 }], { x: 0, y: 0 }, { x: 100, y: 0 })).toEqual([
      { x: 100, y: 0 },
    ]);
  });

  it('goes around a wall by its nearer end, as short as the corners allow', () => {
    // A wall from y 0 to 300 at x 100..110; the ends: y 0 (far) and 300 (near the goal row).
    const walls = [{ x: 100, y: 0, w: 10, h: 300 }];
    const from = { x: 50, y: 250 };
    const to = { x: 160, y: 250 };
    const route = findPath(walls, from, to, 8)!;
    expect(route).not.toBeNull();
    expect(route.at(-1)).toEqual(to);
    expect(walkable(walls, from, route, 8)).toBe(true);
    // Down past y 308.5 and back: the two corners under the wall.
    expect(route.length).toBe(3);
    for (const p of route.slice(0, 2)) expect(p.y).toBeCloseTo(308.5);
    const around = Math.hypot(100 - 8.5 - 50, 58.5) + 10 + 17 + Math.hypot(160 - 118.5, 58.5);
    expect(pathLength(from, route)).toBeCloseTo(around, 5);
  });

  it('threads a gap wide enough for the body and refuses one that is not', () => {
    // A wall across x 200..220 with a gap from y 400 to y 400 + gap.
    const wall = (gap: number) => [
      { x: 200, y: 0, w: 20, h: 400 },
      { x: 200, y: 400 + gap, w: 20, h: 600 - gap },
    ];
    const bounds = { width: 1000, height: 1000 };
    const from = { x: 100, y: 100 };
    const to = { x: 300, y: 900 };
    const wide = findPath(wall(20), from, to, 8, bounds);
    expect(wide).not.toBeNull();
    expect(walkable(wall(20), from, wide!)).toBe(true);
    expect(wide!.some((p) => p.y > 400 && p.y < 420)).toBe(true); // bends in the gap
    expect(findPath(wall(15), from, to, 8, bounds)).toBeNull();
  });

  it('keeps inside the bounds when given: no way round a wall that meets the edge', () => {
    const walls = [{ x: 200, y: 0, w: 20, h: 1000 }];
    expect(
      findPath(walls, { x: 100, y: 500 }, { x: 300, y: 500 }, 8, { width: 1000, height: 1000 }),
    ).toBeNull();
    // Without bounds the route goes round the wall's end, outside the ground.
    expect(findPath(walls, { x: 100, y: 500 }, { x: 300, y: 500 }, 8)).not.toBeNull();
  });

  it('refuses a goal inside a wall or too near one for the body', () => {
    const walls = [{ x: 200, y: 200, w: 50, h: 50 }];
    expect(findPath(walls, { x: 0, y: 0 }, { x: 220, y: 220 })).toBeNull();
    expect(findPath(walls, { x: 0, y: 0 }, { x: 195, y: 220 })).toBeNull();
    expect(findPath(walls, { x: 0, y: 0 }, { x: 191, y: 220 })).not.toBeNull();
  });

  it('finds its way out of a walled yard through its one door', () => {
    // A box 300 × 300 with a 40-unit door in its south wall; start inside, goal north of it.
    const walls = [
      { x: 100, y: 100, w: 300, h: 10 },
      { x: 100, y: 100, w: 10, h: 300 },
      { x: 390, y: 100, w: 10, h: 300 },
      { x: 100, y: 390, w: 130, h: 10 },
      { x: 270, y: 390, w: 130, h: 10 },
    ];
    const from = { x: 250, y: 200 };
    const to = { x: 250, y: 50 };
    const route = findPath(walls, from, to, 8, { width: 600, height: 600 })!;
    expect(walkable(walls, from, route)).toBe(true);
    expect(route.some((p) => p.y > 400)).toBe(true); // out through the door first
    expect(route.at(-1)).toEqual(to);
  });
});

const wall = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

describe('findPath for a walking client', () => {
  it('finds a way through staggered walls', () => {
    const walls = [wall(100, 0, 20, 400), wall(250, 100, 20, 400), wall(0, 500, 500, 20)];
    const from = { x: 50, y: 50 };
    const route = findPath(walls, from, { x: 400, y: 450 }, ENTITY_RADIUS, { width: 500, height: 500 })!;
    expect(route).not.toBeNull();
    expect(walkable(walls, from, route)).toBe(true);
    expect(route.some((p) => p.y > 400 && p.x < 130)).toBe(true);
    expect(route.some((p) => p.y < 100 && p.x > 240)).toBe(true);
  });

  it('gives no way into a closed pen, nor out of one, nor from inside a wall', () => {
    const pen = [
      wall(300, 300, 100, 10),
      wall(300, 390, 100, 10),
      wall(300, 300, 10, 100),
      wall(390, 300, 10, 100),
    ];
    expect(findPath(pen, { x: 100, y: 100 }, { x: 350, y: 350 })).toBeNull();
    expect(findPath(pen, { x: 350, y: 350 }, { x: 100, y: 100 })).toBeNull();
    expect(findPath(pen, { x: 305, y: 350 }, { x: 100, y: 100 })).toBeNull();
  });

  it('walks away from a wall it stands pressed against', () => {
    const walls = [wall(200, 100, 20, 200)];
    const from = { x: 192, y: 200 };
    const route = findPath(walls, from, { x: 300, y: 200 })!;
    expect(route).not.toBeNull();
    expect(walkable(walls, from, route)).toBe(true);
  });

  it('finds walkable ways between random points of the real zones', () => {
    const data = loadWorldData('data');
    const rng = mulberry32(25);
    for (const zone of data.zones) {
      const bounds = { x: zone.x, y: zone.y, width: zone.width, height: zone.height };
      const point = (): Vec2 => {
        for (;;) {
          const p = { x: zone.x + rng() * zone.width, y: zone.y + rng() * zone.height };
          if (standsClear(p, zone.obstacles, ENTITY_RADIUS, bounds)) return p;
        }
      };
      let found = 0;
      for (let i = 0; i < 40; i++) {
        const from = point();
        const to = point();
        const route = findPath(zone.obstacles, from, to, ENTITY_RADIUS, bounds);
        if (!route) continue;
        found++;
        expect(walkable(zone.obstacles, from, route)).toBe(true);
        expect(pathLength(from, route)).toBeGreaterThanOrEqual(distance(from, to) - 1e-9);
      }
      // Nearly everywhere is reachable from nearly everywhere (a closed building is not).
      expect(found).toBeGreaterThan(30);
    }
  });
});

describe('nearestClear', () => {
  it('keeps a clear point and pushes one beside or in a wall out to where a body fits', () => {
    const walls = [wall(200, 200, 50, 50)];
    expect(nearestClear({ x: 100, y: 100 }, walls)).toEqual({ x: 100, y: 100 });
    const near = nearestClear({ x: 196, y: 220 }, walls)!;
    expect(near).toEqual({ x: 191.5, y: 220 });
    const inside = nearestClear({ x: 240, y: 230 }, walls)!;
    expect(inside).toEqual({ x: 258.5, y: 230 });
    expect(blocked(inside, walls)).toBe(false);
    // What it gives, findPath takes as a goal.
    expect(findPath(walls, { x: 100, y: 100 }, near)).not.toBeNull();
  });
});
