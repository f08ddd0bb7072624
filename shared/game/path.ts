/**
 * The shortest way for a walker between axis-aligned walls. Each wall is grown by the
 * walker's clearance (a box of that half-size, as `blocked` and `segmentBlocked` judge it);
 * the shortest way around boxes bends only at their outer corners, so the search is A* over
 * a visibility graph: the two ends and every grown corner that stands clear, joined where
 * the straight leg between them touches no grown wall.
 *
 * With ENTITY_RADIUS as the clearance, every point of every leg is a place the server lets
 * a walker stand, so a client walking the legs is never corrected for a wall.
 */
import { distance, insideZone, segmentBlocked, type Rect, type Vec2, type ZoneBounds } from './movement.js';

export type Point = Vec2;

/**
 * How far outside a grown wall's corner a waypoint stands: a hair, so that float rounding on
 * the way to the server never puts it on the wall, and legs between corners clear it.
 */
const CORNER_MARGIN = 0.5;
/** How much nearer an end may come to a wall it already stands too close to: none (a hair). */
const END_SLACK = 1e-6;

/** How far p is from the wall in the box sense: the largest of the gaps along x and y. */
function boxGap(p: Vec2, o: Rect): number {
  const dx = Math.max(o.x - p.x, 0, p.x - (o.x + o.w));
  const dy = Math.max(o.y - p.y, 0, p.y - (o.y + o.h));
  return Math.max(dx, dy);
}

/**
 * The clearance each wall asks of legs from `p`: `clearance`, except for walls p already stands
 * nearer than that (a walker pressed to a wall, a mob beside one), whose legs may keep the
 * distance p has but never come nearer. Undefined when p is inside or on a wall.
 */
function endClearances(p: Vec2, walls: readonly Rect[], clearance: number): number[] | undefined {
  const out: number[] = [];
  for (const o of walls) {
    const gap = boxGap(p, o);
    if (gap <= 0) return undefined;
    out.push(gap >= clearance ? clearance : Math.max(0, gap - END_SLACK));
  }
  return out;
}

function legClear(a: Vec2, b: Vec2, walls: readonly Rect[], radii: readonly number[]): boolean {
  for (let i = 0; i < walls.length; i++) {
    if (segmentBlocked(a, b, [walls[i]!], radii[i]!)) return false;
  }
  return true;
}

/** Whether a walker of half-size `clearance` may stand at p: clear of every wall (and in `bounds`). */
export function standsClear(
  p: Vec2,
  walls: readonly Rect[],
  clearance: number,
  bounds?: ZoneBounds,
): boolean {
  if (bounds && !insideZone(p, bounds, clearance)) return false;
  return walls.every((o) => boxGap(p, o) >= clearance);
}

/**
 * The point nearest p where a walker of half-size `clearance` may stand: p itself when it is
 * clear, else p pushed out of the walls it is in (or a grown wall's corner). Undefined when
 * none of those is clear.
 */
export function nearestClear(
  p: Vec2,
  walls: readonly Rect[],
  clearance: number,
  bounds?: ZoneBounds,
): Point | undefined {
  if (standsClear(p, walls, clearance, bounds)) return { x: p.x, y: p.y };
  const r = clearance + CORNER_MARGIN;
  const candidates: Point[] = [];
  for (const o of walls) {
    const x0 = o.x - r;
    const x1 = o.x + o.w + r;
    const y0 = o.y - r;
    const y1 = o.y + o.h + r;
    if (p.x > x0 && p.x < x1 && p.y > y0 && p.y < y1) {
      candidates.push({ x: x0, y: p.y }, { x: x1, y: p.y }, { x: p.x, y: y0 }, { x: p.x, y: y1 });
    }
    candidates.push({ x: x0, y: y0 }, { x: x1, y: y0 }, { x: x0, y: y1 }, { x: x1, y: y1 });
  }
  let best: Point | undefined;
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

/**
 * The shortest way from `from` to `to` for a walker of half-size `clearance` among `walls`,
 * as the points to walk through: `from` first, `to` last, a grown wall's corner at each bend;
 * `[from, to]` when the straight line is clear. Null when no way leads there: `to` is
 * walled in, or either end is inside a wall. Given `bounds` (the ground), the way stays on it.
 *
 * An end that stands nearer a wall than `clearance` (pressed against it) is still an end: its
 * legs may not come nearer that wall than it already is.
 */
export function findPath(
  walls: readonly Rect[],
  from: Point,
  to: Point,
  clearance: number,
  bounds?: ZoneBounds,
): Point[] | null {
  const fromRadii = endClearances(from, walls, clearance);
  const toRadii = endClearances(to, walls, clearance);
  if (!fromRadii || !toRadii) return null;
  const start = { x: from.x, y: from.y };
  const goal = { x: to.x, y: to.y };
  const bothRadii = fromRadii.map((r, i) => Math.min(r, toRadii[i]!));
  if (legClear(start, goal, walls, bothRadii)) return [start, goal];

  // Nodes: 0 is the start, 1 the goal, then every clear grown corner.
  const nodes: Point[] = [start, goal];
  const r = clearance + CORNER_MARGIN;
  for (const o of walls) {
    for (const c of [
      { x: o.x - r, y: o.y - r },
      { x: o.x + o.w + r, y: o.y - r },
      { x: o.x - r, y: o.y + o.h + r },
      { x: o.x + o.w + r, y: o.y + o.h + r },
    ]) {
      if (standsClear(c, walls, clearance, bounds)) nodes.push(c);
    }
  }
  const full = walls.map(() => clearance);
  const visible = (i: number, j: number): boolean => {
    const a = Math.min(i, j);
    const b = Math.max(i, j);
    const radii = a === 0 ? (b === 1 ? bothRadii : fromRadii) : a === 1 ? toRadii : full;
    return legClear(nodes[i]!, nodes[j]!, walls, radii);
  };

  // A* with the straight-line distance as the heuristic; N is a few hundred at most, so the
  // open set is a plain scan and edges are tested as nodes are expanded.
  const n = nodes.length;
  const cost = new Float64Array(n).fill(Infinity);
  const estimate = new Float64Array(n).fill(Infinity);
  const came = new Int32Array(n).fill(-1);
  const done = new Uint8Array(n);
  const open = new Set<number>([0]);
  cost[0] = 0;
  estimate[0] = distance(start, goal);
  while (open.size > 0) {
    let current = -1;
    for (const i of open) if (current < 0 || estimate[i]! < estimate[current]!) current = i;
    if (current === 1) {
      const path: Point[] = [];
      for (let i = 1; i >= 0; i = came[i]!) path.push(nodes[i]!);
      return path.reverse();
    }
    open.delete(current);
    done[current] = 1;
    const here = nodes[current]!;
    for (let next = 1; next < n; next++) {
      if (done[next] || next === current) continue;
      const through = cost[current]! + distance(here, nodes[next]!);
      if (through >= cost[next]!) continue;
      if (!visible(current, next)) continue;
      cost[next] = through;
      estimate[next] = through + distance(nodes[next]!, goal);
      came[next] = current;
      open.add(next);
    }
  }
  return null;
}
