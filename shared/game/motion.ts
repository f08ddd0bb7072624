/**
 * Movement as state. An entity's motion is replicated as a state (where it was at a server
 * time, whether it walks, its heading and speed), sent when it changes: start, stop, turn,
 * a jump, and a low-rate heartbeat while walking. Observers dead-reckon from the newest
 * state; the server re-sends a state as soon as its own dead reckoning of what observers
 * draw strays more than MOTION_ERROR_UNITS from the truth.
 */
import { MOVE_SEND_HZ, type Vec2 } from './movement.js';

/** The server re-sends a walking entity's state at least this often. */
export const MOTION_HEARTBEAT_MS = 1000;
/** The server re-sends a state when observers' dead reckoning is off by more than this. */
export const MOTION_ERROR_UNITS = 4;
/**
 * A client re-sends its own movement state this often while walking: four small inputs a
 * second, none standing. The server can tell a walker's link has stalled no sooner than a
 * heartbeat after its newest input, so this is, with a send step, how far a walker whose stop
 * was held up on its link is walked on past it before the server holds it (36 units at a
 * walk, at most). A heartbeat of 100 ms halved that and cost, at 1,000 clients, 70% more
 * packets in, 12–25% more server CPU and 9–34 ms more move-to-observer p99
 * (bench/results/load-2026-11-27T16-44-42-heartbeat100.md against 14-00-20.md).
 */
export const CLIENT_HEARTBEAT_MS = 250;
/** A client re-sends its movement state when its heading turns by more than this (radians). */
export const CLIENT_TURN_EPSILON = 0.02;
/**
 * The latest a walking client's next input is made after its newest: a heartbeat, and the
 * step its client reads its keys and sends at (MOVE_SEND_HZ at the slowest). A walker none of whose inputs takes effect
 * by then on its timeline (server/world/timeline.ts: an input that came in time waits for
 * its time there, so only a stall longer than any in its window makes one overdue) is held
 * by the server from that moment where its newest state had carried it by then: run on no
 * further than that, until its inputs come again.
 */
export const INPUT_OVERDUE_MS = CLIENT_HEARTBEAT_MS + 1000 / MOVE_SEND_HZ;
/**
 * The server stands an overdue walker this much later than INPUT_OVERDUE_MS, dated back to
 * it: a client whose frame hitched sends its heartbeat a little late and is not held for it.
 * Within the margin every watcher's interpolation delay keeps for the tick wait
 * (web-client/src/state/render-clock.ts), so no watcher has drawn the walker past the hold
 * when it comes.
 */
export const INPUT_GRACE_MS = 50;
/**
 * Observers walk an entity on from its newest state for at most this long; past it, an
 * entity whose updates stalled is held where it got to, not run on and pulled back.
 */
export const MAX_DEAD_RECKON_MS = MOTION_HEARTBEAT_MS + 500;

export interface MotionState {
  /** Position at time t. */
  x: number;
  y: number;
  /** Server ms. */
  t: number;
  moving: boolean;
  /** Heading while moving, facing while standing (radians). */
  angle: number;
  /** Units per second while moving. */
  speed: number;
}

/** Where a state puts its entity at time `t` (never before the state, never past the hold). */
export function deadReckon(s: MotionState, t: number, maxMs = MAX_DEAD_RECKON_MS): Vec2 {
  if (!s.moving) return { x: s.x, y: s.y };
  const dt = Math.min(Math.max(0, t - s.t), maxMs) / 1000;
  return { x: s.x + Math.cos(s.angle) * s.speed * dt, y: s.y + Math.sin(s.angle) * s.speed * dt };
}

/**
 * Where two states of a walker meet: the ms after `a` at which a walker that left `a` at its
 * heading and speed, then went at b's, would reach `b` (least squares over both axes). The
 * corner of a turn, the moment of a change of speed, the point a stop was walked up to, the
 * moment a start left its spot. Undefined when the two are one course (velocities within a
 * unit per second of each other) or b is not after a. The server places a change of course
 * there (server/world/walkers.ts), and clients put a state there between two they were sent.
 */
export function cornerAfter(a: MotionState, b: MotionState): number | undefined {
  const span = b.t - a.t;
  if (!(span > 0)) return undefined;
  const ax = a.moving ? (Math.cos(a.angle) * a.speed) / 1000 : 0;
  const ay = a.moving ? (Math.sin(a.angle) * a.speed) / 1000 : 0;
  const bx = b.moving ? (Math.cos(b.angle) * b.speed) / 1000 : 0;
  const by = b.moving ? (Math.sin(b.angle) * b.speed) / 1000 : 0;
  const kx = ax - bx;
  const ky = ay - by;
  const k2 = kx * kx + ky * ky;
  // Legs whose velocities differ by less than a unit per second are one walk.
  if (k2 < 1e-6) return undefined;
  const rx = b.x - a.x - bx * span;
  const ry = b.y - a.y - by * span;
  return (rx * kx + ry * ky) / k2;
}
