/**
 * Shortest walkable routes around walls, for anything that walks a body through a zone: data
 * checks over the world's layout, and clients that route their character to a point.
 *
 * Walls are axis-aligned rectangles and a body is a square of half-size `clearance`, so the
 * ground a body's centre may not enter is each wall grown by `clearance`: again a rectangle.
 * The shortest route around rectangles bends only at their corners, so the search is A* over
 * a visibility graph: the start, the goal and the grown walls' corners (a hair outside), linked
 * where a body can slide straight from one to the other (segmentBlocked, the check the
 * server's own movement uses). With clearance >= ENTITY_RADIUS every point of the route is
 * ground the server lets a player stand on.
 */
import {
  blocked,
  distance,
  ENTITY_RADIUS,
  insideZone,
  segmentBlocked,
  type Rect,
  type Vec2,
  type ZoneBounds,
} from './movement.js';

/** How far outside a grown wall's corner a route bends, so that it never grazes the wall. */
const CORNER_GAP = 0.5;

/**
 * The waypoints of a shortest route from `from` to `to` for a body of half-size `clearance`
 * (`from` left out, `to` last; `[to]` when the way is straight; movement.ts's pathLength
 * measures it), or null when no route exists.
 * With `bounds` (the zone's ground) the route keeps the body inside it; without, it may bend
 * around the walls' outer corners wherever they are.
 */
export function findPath(
  walls: readonly Rect[],
  from: Vec2,
  to: Vec2,
  clearance: number = ENTITY_RADIUS,
  bounds?: ZoneBounds,
): Vec2[] | null {
  const standable = (p: Vec2): boolean =>
    !blocked(p, walls, clearance) && (!bounds || insideZone(p, bounds, clearance));
  if (!standable(to)) return null;
  if (!segmentBlocked(from, to, walls, clearance)) return [{ x: to.x, y: to.y }];

  const grow = clearance + CORNER_GAP;
  // Node 0 is the start, node 1 the goal, then the corners one can stand on.
  const nodes: Vec2[] = [from, to];
  for (const o of walls) {
    for (const c of [
      { x: o.x - grow, y: o.y - grow },
      { x: o.x + o.w + grow, y: o.y - grow },
      { x: o.x + o.w + grow, y: o.y + o.h + grow },
      { x: o.x - grow, y: o.y + o.h + grow },
    ]) {
      if (standable(c)) nodes.push(c);
    }
  }

  const n = nodes.length;
  const cost = new Float64Array(n).fill(Infinity);
  const came = new Int32Array(n).fill(-1);
  const done = new Uint8Array(n);
  cost[0] = 0;
  // Few hundred nodes at most: a linear scan for the best open node beats keeping a heap.
  for (;;) {
    let best = -1;
    let bestF = Infinity;
    for (let i = 0; i < n; i++) {
      if (done[i] || cost[i] === Infinity) continue;
      const f = cost[i]! + distance(nodes[i]!, to);
      if (f < bestF) {
        bestF = f;
        best = i;
      }
    }
    if (best < 0) return null;
    if (best === 1) break;
    done[best] = 1;
    const a = nodes[best]!;
    for (let i = 1; i < n; i++) {
      if (done[i]) continue;
      const b = nodes[i]!;
      const c = cost[best]! + distance(a, b);
      if (c >= cost[i]!) continue;
      if (segmentBlocked(a, b, walls, clearance)) continue;
      cost[i] = c;
      came[i] = best;
    }
  }

  const route: Vec2[] = [];
  for (let i = 1; i > 0; i = came[i]!) route.push({ x: nodes[i]!.x, y: nodes[i]!.y });
  return route.reverse();
}

/** How far p is from the wall in the box sense: the larger of the gaps along x and y. */
function boxGap(p: Vec2, o: Rect): number {
  const dx = Math.max(o.x - p.x, 0, p.x - (o.x + o.w));
  const dy = Math.max(o.y - p.y, 0, p.y - (o.y + o.h));
  return Math.max(dx, dy);
}

/** Whether a body of half-size `clearance` may stand at p: clear of every wall (and in `bounds`). */
export function standsClear(
  p: Vec2,
  walls: readonly Rect[],
  clearance: number = ENTITY_RADIUS,
  bounds?: ZoneBounds,
): boolean {
  if (bounds && !insideZone(p, bounds, clearance)) return false;
  return walls.every((o) => boxGap(p, o) >= clearance);
}

/**
 * The point nearest p where a body of half-size `clearance` may stand (a goal findPath
 * takes): p itself when it is clear, else p pushed out of the grown walls it is in, or a
 * grown wall's corner. Undefined when none of those is clear.
 */
export function nearestClear(
  p: Vec2,
  walls: readonly Rect[],
  clearance: number = ENTITY_RADIUS,
  bounds?: ZoneBounds,
): Vec2 | undefined {
  if (standsClear(p, walls, clearance, bounds)) return { x: p.x, y: p.y };
  const grow = clearance + CORNER_GAP;
  const candidates: Vec2[] = [];
  for (const o of walls) {
    const x0 = o.x - grow;
    const x1 = o.x + o.w + grow;
    const y0 = o.y - grow;
    const y1 = o.y + o.h + grow;
    if (p.x > x0 && p.x < x1 && p.y > y0 && p.y < y1) {
      candidates.push({ x: x0, y: p.y }, { x: x1, y: p.y }, { x: p.x, y: y0 }, { x: p.x, y: y1 });
    }
    candidates.push({ x: x0, y: y0 }, { x: x1, y: y0 }, { x: x0, y: y1 }, { x: x1, y: y1 });
  }
  let best: Vec2 | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(p, c);
    if (d < bestD && standsClear(c, walls, clearance, bounds)) {
      best = c;
      bestD = d;
    }
  }
  return best;
}
