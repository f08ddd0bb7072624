/**
 * Movement rules both sides read: the server validates MoveInput with them, the client
 * predicts its own character with them, so a clean link never sees a correction.
 */

export interface Vec2 {
  x: number;
  y: number;
}

/** An axis-aligned wall or obstacle. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The ground one may stand on: a rectangle of the world plane. Zones lie side by side in one
 * coordinate plane, so a zone's ground starts at its corner (x, y), 0 when left out.
 */
export interface ZoneBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

/** Units per second a player walks. */
export const PLAYER_SPEED = 120;
/** Half-size of an entity's collision box. */
export const ENTITY_RADIUS = 8;
/**
 * Slack on the speed check: client and server clocks tick apart and inputs bunch up on the
 * wire, so a move may cover up to this factor of speed × elapsed time (plus MOVE_SLACK_UNITS).
 */
export const MOVE_TOLERANCE = 1.25;
export const MOVE_SLACK_UNITS = 4;
/** Clients send MoveInput at most this often. */
export const MOVE_SEND_HZ = 20;

export function distance(a: Vec2, b: Vec2): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

export function insideZone(p: Vec2, zone: ZoneBounds, radius = ENTITY_RADIUS): boolean {
  const x0 = zone.x ?? 0;
  const y0 = zone.y ?? 0;
  return (
    p.x >= x0 + radius &&
    p.y >= y0 + radius &&
    p.x <= x0 + zone.width - radius &&
    p.y <= y0 + zone.height - radius
  );
}

export function clampToZone(p: Vec2, zone: ZoneBounds, radius = ENTITY_RADIUS): Vec2 {
  const x0 = zone.x ?? 0;
  const y0 = zone.y ?? 0;
  return {
    x: Math.min(Math.max(p.x, x0 + radius), x0 + zone.width - radius),
    y: Math.min(Math.max(p.y, y0 + radius), y0 + zone.height - radius),
  };
}

/** Whether a box of half-size `radius` at p overlaps any obstacle. */
export function blocked(p: Vec2, obstacles: readonly Rect[], radius = ENTITY_RADIUS): boolean {
  for (const o of obstacles) {
    if (p.x + radius > o.x && p.x - radius < o.x + o.w && p.y + radius > o.y && p.y - radius < o.y + o.h) {
      return true;
    }
  }
  return false;
}

/**
 * Moves from `from` toward `to`, sliding along walls: tries the full step, then each axis
 * alone, else stays. Both the client's prediction and the server's mob movement use this.
 */
export function slide(from: Vec2, to: Vec2, obstacles: readonly Rect[], zone: ZoneBounds): Vec2 {
  const target = clampToZone(to, zone);
  if (!blocked(target, obstacles)) return target;
  const xOnly = { x: target.x, y: from.y };
  if (!blocked(xOnly, obstacles)) return xOnly;
  const yOnly = { x: from.x, y: target.y };
  if (!blocked(yOnly, obstacles)) return yOnly;
  return { x: from.x, y: from.y };
}

/** The furthest a move may go in `elapsedMs` at `speed` units per second. */
export function maxMoveDistance(speed: number, elapsedMs: number): number {
  return speed * (Math.max(0, elapsedMs) / 1000) * MOVE_TOLERANCE + MOVE_SLACK_UNITS;
}

/** Where a walker is along a path, and which way it faces. */
export interface PathPoint extends Vec2 {
  /** Radians in [0, 2π), 0 along +x: the heading of the segment being walked. */
  facing: number;
  /** True once the last waypoint is reached (the walker stands there). */
  arrived: boolean;
}

const TAU = Math.PI * 2;

/** A heading in [0, 2π) from `from` toward `to` (0 when they coincide). */
export function headingTo(from: Vec2, to: Vec2): number {
  const a = Math.atan2(to.y - from.y, to.x - from.x);
  return a < 0 ? a + TAU : a;
}

/**
 * Where a walker that left `start` at `speed` units per second through `waypoints` (straight
 * segments) is after `elapsedMs`. The server advances mobs with it and the client draws path records
 * with it, so both agree on a mob's position without per-tick moves.
 */
export function positionAlongPath(
  start: Vec2,
  waypoints: readonly Vec2[],
  speed: number,
  elapsedMs: number,
): PathPoint {
  let left = speed * (Math.max(0, elapsedMs) / 1000);
  let from = start;
  let facing = 0;
  for (const to of waypoints) {
    const seg = distance(from, to);
    if (seg > 0) facing = headingTo(from, to);
    if (left < seg) {
      const f = left / seg;
      return { x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f, facing, arrived: false };
    }
    left -= seg;
    from = to;
  }
  return { x: from.x, y: from.y, facing, arrived: true };
}

/** Length of the walk from `start` through `waypoints`. */
export function pathLength(start: Vec2, waypoints: readonly Vec2[]): number {
  let total = 0;
  let from = start;
  for (const to of waypoints) {
    total += distance(from, to);
    from = to;
  }
  return total;
}

/**
 * Whether a box of half-size `radius` sliding in a straight line from a to b touches an
 * obstacle anywhere on the way (each obstacle grown by radius, then a segment-box clip).
 */
export function segmentBlocked(
  a: Vec2,
  b: Vec2,
  obstacles: readonly Rect[],
  radius = ENTITY_RADIUS,
): boolean {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  for (const o of obstacles) {
    const minX = o.x - radius;
    const maxX = o.x + o.w + radius;
    const minY = o.y - radius;
    const maxY = o.y + o.h + radius;
    // Most walls are nowhere near: skip them on the segment's bounding box.
    if (Math.max(a.x, b.x) <= minX || Math.min(a.x, b.x) >= maxX) continue;
    if (Math.max(a.y, b.y) <= minY || Math.min(a.y, b.y) >= maxY) continue;
    // Liang-Barsky: clip the segment against each slab; an empty interval is a miss.
    // Unrolled (no closure) because the server runs it for every move.
    let t0 = 0;
    let t1 = 1;
    const ps = [-dx, dx, -dy, dy];
    const qs = [a.x - minX, maxX - a.x, a.y - minY, maxY - a.y];
    let hit = true;
    for (let k = 0; k < 4 && hit; k++) {
      const pk = ps[k]!;
      const qk = qs[k]!;
      if (pk === 0) {
        if (qk <= 0) hit = false;
        continue;
      }
      const r = qk / pk;
      if (pk < 0) {
        if (r > t1) hit = false;
        else if (r > t0) t0 = r;
      } else if (r < t0) hit = false;
      else if (r < t1) t1 = r;
    }
    if (hit && t0 < t1) return true;
  }
  return false;
}
