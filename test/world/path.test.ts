import { describe, expect, it } from 'vitest';
import {
  blocked,
  distance,
  ENTITY_RADIUS,
  pathLength,
  segmentBlocked,
  type Rect,
  type Vec2,
} from '../../shared/game/movement.js';
import { findPath, nearestClear, standsClear } from '../../shared/game/path.js';
import { mulberry32 } from '../../shared/game/rng.js';
import { loadWorldData } from '../../server/world/index.js';

const wall = (x: number, y: number, w: number, h: number): Rect => ({ x, y, w, h });

/** Every leg, and every point a walker at 6 units a step would send, is one the server takes. */
function walkable(path: readonly Vec2[], walls: readonly Rect[], clearance = ENTITY_RADIUS): void {
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1]!;
    const b = path[i]!;
    expect(segmentBlocked(a, b, walls, clearance), `leg ${i} clips a wall`).toBe(false);
    const steps = Math.ceil(distance(a, b) / 6);
    for (let k = 1; k <= steps; k++) {
      const p = { x: a.x + ((b.x - a.x) * k) / steps, y: a.y + ((b.y - a.y) * k) / steps };
      expect(blocked(p, walls), `a step of leg ${i} stands in a wall`).toBe(false);
    }
  }
}

const length = (path: readonly Vec2[]) => pathLength(path[0]!, path.slice(1));

describe('findPath', () => {
  it('goes in a straight line when nothing is in the way', () => {
    const walls = [wall(200, 0, 20, 100)];
    expect(findPath(walls, { x: 50, y: 200 }, { x: 400, y: 220 }, ENTITY_RADIUS)).toEqual([
      { x: 50, y: 200 },
      { x: 400, y: 220 },
    ]);
    expect(findPath([], { x: 1, y: 2 }, { x: 3, y: 4 }, ENTITY_RADIUS)).toEqual([
      { x: 1, y: 2 },
      { x: 3, y: 4 },
    ]);
  });

  it('routes around a wall by its nearer end, bending at its corners', () => {
    // A wall from y 40 to y 300 between the ends: round its top (nearer) end.
    const walls = [wall(200, 40, 20, 260)];
    const from = { x: 100, y: 120 };
    const to = { x: 320, y: 120 };
    const path = findPath(walls, from, to, ENTITY_RADIUS)!;
    expect(path).not.toBeNull();
    expect(path[0]).toEqual(from);
    expect(path.at(-1)).toEqual(to);
    expect(path.length).toBe(4);
    walkable(path, walls);
    // Over the top, just past the grown corners (y 40 - 8 = 32).
    for (const bend of path.slice(1, -1)) expect(bend.y).toBeCloseTo(31.5, 5);
    expect(length(path)).toBeGreaterThan(distance(from, to));
    // And no longer than the way round that the corners give.
    expect(length(path)).toBeLessThan(2 * Math.hypot(108.5, 88.5) + 37);
  });

  it('finds a way through a maze of walls', () => {
    // Two staggered walls: through the gap at the bottom of the first, the top of the second.
    const walls = [wall(100, 0, 20, 400), wall(250, 100, 20, 400), wall(0, 500, 500, 20)];
    const path = findPath(walls, { x: 50, y: 50 }, { x: 400, y: 450 }, ENTITY_RADIUS, {
      width: 500,
      height: 500,
    })!;
    expect(path).not.toBeNull();
    walkable(path, walls);
    expect(path.some((p) => p.y > 400 && p.x < 130)).toBe(true);
    expect(path.some((p) => p.y < 100 && p.x > 240)).toBe(true);
  });

  it('gives no path to a place walled in, nor out of one', () => {
    // A closed pen from 300,300 to 400,400.
    const pen = [
      wall(300, 300, 100, 10),
      wall(300, 390, 100, 10),
      wall(300, 300, 10, 100),
      wall(390, 300, 10, 100),
    ];
    expect(findPath(pen, { x: 100, y: 100 }, { x: 350, y: 350 }, ENTITY_RADIUS)).toBeNull();
    expect(findPath(pen, { x: 350, y: 350 }, { x: 100, y: 100 }, ENTITY_RADIUS)).toBeNull();
    // With a door in its east side, the way goes in through it.
    const door = [...pen.slice(0, 3), wall(390, 300, 10, 30), wall(390, 370, 10, 30)];
    const path = findPath(door, { x: 100, y: 100 }, { x: 350, y: 350 }, ENTITY_RADIUS)!;
    expect(path).not.toBeNull();
    walkable(path, door);
    expect(path.some((p) => p.x > 400)).toBe(true);
  });

  it('gives no path from or to a point inside a wall', () => {
    const walls = [wall(200, 200, 50, 50)];
    expect(findPath(walls, { x: 220, y: 220 }, { x: 10, y: 10 }, ENTITY_RADIUS)).toBeNull();
    expect(findPath(walls, { x: 10, y: 10 }, { x: 220, y: 220 }, ENTITY_RADIUS)).toBeNull();
  });

  it('keeps the clearance: a gap narrower than the walker is no way through', () => {
    // Two walls leave a gap 12 units wide at y 200-212; a walker of half-size 8 needs 16.
    const walls = [wall(200, 0, 20, 200), wall(200, 212, 20, 300)];
    const from = { x: 100, y: 206 };
    const to = { x: 320, y: 206 };
    const narrow = findPath(walls, from, to, 4)!;
    expect(narrow).toEqual([from, to]);
    const wide = findPath(walls, from, to, ENTITY_RADIUS)!;
    expect(wide).not.toBeNull();
    walkable(wide, walls);
    // Round an end of a wall (the upper's is nearer), well away from the gap.
    expect(wide.some((p) => p.y < 0)).toBe(true);
    // Within bounds that close that way too, there is none.
    expect(findPath(walls, from, to, ENTITY_RADIUS, { width: 600, height: 512 })).toBeNull();
    expect(findPath(walls, from, to, 4, { width: 600, height: 512 })).toEqual([from, to]);
  });

  it('keeps to the ground it is given: no corner outside the bounds', () => {
    // The wall touches the top of the ground: the only way round is its bottom.
    const walls = [wall(200, 0, 20, 150)];
    const path = findPath(walls, { x: 100, y: 50 }, { x: 320, y: 50 }, ENTITY_RADIUS, {
      width: 500,
      height: 500,
    })!;
    expect(path).not.toBeNull();
    expect(path.every((p) => p.y >= ENTITY_RADIUS)).toBe(true);
    expect(path.some((p) => p.y > 150)).toBe(true);
  });

  it('walks away from a wall it stands pressed against, never nearer it', () => {
    const walls = [wall(200, 100, 20, 200)];
    // Pressed to the wall's west face (exactly ENTITY_RADIUS off it, and a hair nearer).
    for (const x of [192, 192.0000001]) {
      const path = findPath(walls, { x, y: 200 }, { x: 300, y: 200 }, ENTITY_RADIUS)!;
      expect(path).not.toBeNull();
      walkable(path, walls, 0);
      for (const p of path.slice(1)) expect(blocked(p, walls)).toBe(false);
    }
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
        const path = findPath(zone.obstacles, from, to, ENTITY_RADIUS, bounds);
        if (!path) continue;
        found++;
        walkable(path, zone.obstacles);
        expect(length(path)).toBeGreaterThanOrEqual(distance(from, to) - 1e-9);
      }
      // Nearly everywhere is reachable from nearly everywhere (a closed building is not).
      expect(found).toBeGreaterThan(30);
    }
  });
});

describe('nearestClear', () => {
  it('keeps a clear point and pushes one beside a wall out to where a walker fits', () => {
    const walls = [wall(200, 200, 50, 50)];
    expect(nearestClear({ x: 100, y: 100 }, walls, ENTITY_RADIUS)).toEqual({ x: 100, y: 100 });
    const near = nearestClear({ x: 196, y: 220 }, walls, ENTITY_RADIUS)!;
    expect(near.y).toBe(220);
    expect(near.x).toBeCloseTo(191.5, 5);
    const inside = nearestClear({ x: 240, y: 230 }, walls, ENTITY_RADIUS)!;
    expect(inside).toEqual({ x: 258.5, y: 230 });
    expect(blocked(inside, walls)).toBe(false);
  });
});
