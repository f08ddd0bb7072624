/**
 * Interpolation math both a browser client and a headless client use: where a remote entity
 * is at a server time, from its movement states (shared/game/motion.ts).
 *
 * An entity's history is a short list of motion states, oldest first. Between two states it
 * is on the straight line between their positions (so an explicit stop is exact: it never
 * walks past it); after the newest it is dead-reckoned from it, and held once that state is
 * MAX_DEAD_RECKON_MS old. A mob's path is the same thing: a state at its start and one at
 * each waypoint's arrival time, so paths and moves are sampled alike and a new path or move
 * takes over from its own time without disturbing what came before it.
 *
 * Remote entities are drawn INTERPOLATION_DELAY_MS behind the newest server time the client
 * has seen, so the state that ends a segment (a stop, a turn) has nearly always arrived
 * before the drawn time reaches it.
 */
import { deadReckon, type MotionState } from './motion.js';
import type { Vec2 } from './movement.js';

/** How far behind the server clock remote entities are drawn: about two ticks at 20 Hz. */
export const INTERPOLATION_DELAY_MS = 100;

const TAU = Math.PI * 2;

export function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

/** Interpolates an angle the short way round, result in [0, 2π). */
export function lerpAngle(a: number, b: number, f: number): number {
  let d = (((b - a) % TAU) + TAU) % TAU;
  if (d > Math.PI) d -= TAU;
  return (((a + d * f) % TAU) + TAU) % TAU;
}

/** The angle of motion from a to b, or `fallback` when they are the same point. */
export function facingOf(a: Vec2, b: Vec2, fallback: number): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (dx === 0 && dy === 0) return fallback;
  return (Math.atan2(dy, dx) + TAU) % TAU;
}

export interface Placement {
  x: number;
  y: number;
  /** Radians. */
  facing: number;
}

/**
 * Where motion states put an entity at `t`: before the first, where the first has it;
 * between two, on the line between them; past the newest, dead-reckoned from it (held once
 * it is MAX_DEAD_RECKON_MS old). Undefined when there are no states.
 */
export function sampleMotion(states: readonly MotionState[], t: number): Placement | undefined {
  const n = states.length;
  const first = states[0];
  if (!first) return undefined;
  if (t <= first.t) return { x: first.x, y: first.y, facing: first.angle };
  // The newest state at or before t (histories are short: a few states, a path's waypoints).
  let i = n - 1;
  while (i > 0 && states[i]!.t > t) i--;
  const a = states[i]!;
  const b = states[i + 1];
  if (!b) {
    const p = deadReckon(a, t);
    return { x: p.x, y: p.y, facing: a.angle };
  }
  const f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1;
  return { x: lerp(a.x, b.x, f), y: lerp(a.y, b.y, f), facing: a.moving ? a.angle : b.angle };
}

/**
 * A path as motion states: walking from `from` at `startTime` toward each waypoint in turn at
 * `speed`, one state per waypoint reached (the last one standing, facing the way it came).
 * `facing` is what it faces when the path has nowhere to go.
 */
export function pathMotion(
  from: Vec2,
  waypoints: readonly Vec2[],
  speed: number,
  startTime: number,
  facing = 0,
): MotionState[] {
  const states: MotionState[] = [];
  let at: Vec2 = from;
  let t = startTime;
  let angle = facing;
  for (const wp of waypoints) {
    const leg = Math.hypot(wp.x - at.x, wp.y - at.y);
    // A leg of no length (a stop where it stands) adds no state of its own.
    if (leg === 0 || speed <= 0) continue;
    angle = facingOf(at, wp, angle);
    states.push({ x: at.x, y: at.y, t, moving: true, angle, speed });
    t += (leg / speed) * 1000;
    at = wp;
  }
  // Standing at the end; with speed 0 the walk cannot start, so it stands where it is.
  states.push({ x: at.x, y: at.y, t, moving: false, angle, speed: 0 });
  return states;
}
