/**
 * Where the server stands a walker it stops on its own (a death, a dropped connection, inputs
 * that stopped coming): not back at its newest input, but where that input's heading and
 * speed have carried it by now. Observers dead-reckon every walker from its newest state, so
 * that is where they draw it; stood anywhere else, it would slide back before their eyes.
 *
 * And where a walker's own change of state is placed on its walk. A client reads its keys
 * once a frame: its prediction walks each frame's whole step the way the keys held at that
 * frame say, so a key let go or pressed between two frames shows at the next one, and the
 * stop or turn it sends is a frame (or a hitch) past the point where its walk ended or
 * turned. A stop is dated when the walk reached it (stopTime); a turn or a change of speed is
 * placed and dated where the old course met the new one (turnCorner), on the course watchers
 * had drawn, so they see it go on from there with nothing pulled back, and the server's own
 * record of the walk turns where theirs does.
 *
 * This is the server's rule, not each client's: every client gets it, the page, the terminal
 * client, the bots and the native ones, with no change to what they send. A client could
 * date its turn itself, at the frame before the one that saw the key (where its prediction
 * turned), but an input dated before it was sent looks that much late to the input timeline
 * (timeline.ts), whose offset is the most delayed input of the last 30 s: every walker that
 * turned after a slow frame would be drawn that much later by all its watchers for 30 s. And
 * the time a key really changed (a browser's event time) is not where the client's own
 * prediction turned, so a state dated then would disagree with the client's own walk. The
 * server places the state from the two it has, within bounds: never before the state before
 * it nor after its own time, never off the way the old course took by then, never across a
 * wall. The move checks are not touched: they start from the client's own newest input.
 */
import { cornerAfter, deadReckon, MOTION_ERROR_UNITS, type MotionState } from '../../shared/game/motion.js';
import {
  blocked,
  distance,
  insideZone,
  MOVE_SEND_HZ,
  segmentBlocked,
  type Vec2,
} from '../../shared/game/movement.js';
import { walkable } from './handoff.js';
import type { Player } from './types.js';
import { playerMoved, type World } from './world.js';

/**
 * A corner is taken only where the new course from it passes this close to where the client
 * says it is: further off, the two courses do not meet, and the state stays where it was
 * sent. Watchers are sent a walker's state again once it strays this far anyway.
 */
export const CORNER_GAP_UNITS = MOTION_ERROR_UNITS;

/**
 * Where a walker's newest state has carried it by `at` (now, unless given), unless a wall or
 * the zone's edge is in the way.
 */
export function walkedTo(w: World, p: Player, at = w.now): Vec2 {
  const state = { x: p.x, y: p.y, t: p.inputAt, moving: true, angle: p.facing, speed: p.moveSpeed };
  const to = deadReckon(state, at);
  if (!insideZone(to, w.zone) || blocked(to, w.walls) || segmentBlocked(p, to, w.walls, 0)) return p;
  return to;
}

/**
 * When a walker that stops at `to` (a stop its client sent, on its timeline at `at`) got
 * there: its newest state walked it from where it is at its speed, so it stands from the
 * moment that walk reached `to`, never before that state nor after `at`. A client sees a key
 * let go at its next frame and sends the stop then, a frame (or a hitch) after its walk
 * ended; dated then, the stop says the last stretch was walked slower than it was, and a
 * watcher that had reckoned the walker on at its speed would be pulled back along it.
 */
export function stopTime(p: Player, to: Vec2, at: number): number {
  if (!p.moving || !(p.moveSpeed > 0)) return at;
  const reached = p.inputAt + (distance(p, to) / p.moveSpeed) * 1000;
  return Math.max(Math.min(at, reached), Math.min(at, p.inputAt));
}

/**
 * Where and when a walker changed course (a turn, a change of speed), given its new walking
 * state `next` (where its client has it at `next.t` on the server's timeline, its heading and
 * speed): the point where its newest state's course, walked on from where it is at its speed,
 * meets the new one (cornerAfter, the same rule clients use between two states they are sent),
 * dated when the walk got there. A client sees a new key at its next frame and sends the turn
 * from where that frame left it, a frame (or a hitch) past the corner; dated and placed there,
 * the state has watchers who reckoned the old course up to the corner draw the walk on from
 * it, and the server's record turns where they do instead of cutting the corner.
 *
 * Undefined (the state stays where and when it was sent) unless the walker was walking and
 * the corner lies after its newest state and before `next.t` (so on the way its old course
 * took by then), the new course from it passes within CORNER_GAP_UNITS of `next`, and the
 * corner is walkable ground reached from where the walker is, and reaching `next`, without
 * crossing a wall. Only the state watchers draw from moves: the move checks have already
 * judged `next` from the client's last accepted input (Player.lastInput), which stays `next`.
 */
export function turnCorner(w: World, p: Player, next: MotionState): (Vec2 & { t: number }) | undefined {
  if (!p.moving || !(p.moveSpeed > 0) || !next.moving) return undefined;
  const from: MotionState = {
    x: p.x,
    y: p.y,
    t: p.inputAt,
    moving: true,
    angle: p.facing,
    speed: p.moveSpeed,
  };
  const u = cornerAfter(from, next);
  if (u === undefined || !(u > 0 && u < next.t - from.t)) return undefined;
  const along = (p.moveSpeed * u) / 1000;
  const corner = { x: p.x + Math.cos(p.facing) * along, y: p.y + Math.sin(p.facing) * along };
  const after = (next.speed * (next.t - from.t - u)) / 1000;
  const onNew = { x: corner.x + Math.cos(next.angle) * after, y: corner.y + Math.sin(next.angle) * after };
  if (distance(onNew, next) > CORNER_GAP_UNITS) return undefined;
  if (!walkable(w, corner) || blocked(corner, w.walls)) return undefined;
  if (segmentBlocked(p, corner, w.walls, 0) || segmentBlocked(corner, next, w.walls, 0)) return undefined;
  return { x: corner.x, y: corner.y, t: from.t + u };
}

/**
 * When and where a standing walker started, given its first walking state `next`: a client
 * sends the start the frame after the one that saw the key (its prediction has walked that
 * step), so the state is a step along its course from the spot it stood on. Placed back on
 * that spot, dated when the walk had to leave it to be at `next` on time, as clients place it
 * between two states they are sent: watchers and the server's own record then have it stand
 * until it left and walk from there, not jump the step. Undefined (the state stays where and
 * when it was sent) unless `next` lies ahead along its heading (within a unit of the line),
 * at most a send step's walk (MOVE_SEND_HZ) from the spot and with no wall between, and the
 * time it left is after its newest state.
 */
export function departure(w: World, p: Player, next: MotionState): (Vec2 & { t: number }) | undefined {
  // A start sent from the spot itself left it when it was sent.
  if (p.moving || !next.moving || !(next.speed > 0) || (next.x === p.x && next.y === p.y)) return undefined;
  const stood: MotionState = { x: p.x, y: p.y, t: p.inputAt, moving: false, angle: p.facing, speed: 0 };
  const u = cornerAfter(stood, next);
  if (u === undefined || !(u > 0)) return undefined;
  const t = stood.t + u;
  if (!(t < next.t) || next.t - t > 1000 / MOVE_SEND_HZ) return undefined;
  const left = { x: p.x, y: p.y, t, moving: true, angle: next.angle, speed: next.speed };
  if (distance(deadReckon(left, next.t, Infinity), next) > 1) return undefined;
  if (segmentBlocked(p, next, w.walls, 0)) return undefined;
  return { x: p.x, y: p.y, t };
}

/**
 * Stands a walker where observers have it at `at` (now, unless given: never later, nor
 * before its newest state); the stop is dated then. Its client is not told (a death tells it
 * after): when its inputs come again they walk on from its newest input (Player.lastInput),
 * and the move checks start there.
 */
export function standWalker(w: World, p: Player, at = w.now): void {
  if (!p.moving) return;
  const t = Math.max(p.inputAt, Math.min(at, w.now));
  const to = walkedTo(w, p, t);
  if (to !== p) {
    p.x = to.x;
    p.y = to.y;
    playerMoved(w, p);
  }
  p.inputAt = t;
  p.moving = false;
  p.moveSpeed = 0;
  w.walking.delete(p);
  w.moved.add(p);
}
