/**
 * Where the server stands a walker it stops on its own (a death, a dropped connection, inputs
 * that stopped coming): not back at its newest input, but where that input's heading and
 * speed have carried it by now. Observers dead-reckon every walker from its newest state, so
 * that is where they draw it; stood anywhere else, it would slide back before their eyes.
 */
import { deadReckon } from '../../shared/game/motion.js';
import { blocked, distance, insideZone, segmentBlocked, type Vec2 } from '../../shared/game/movement.js';
import type { Player } from './types.js';
import { playerMoved, type World } from './world.js';

/** Where a walker's newest state has carried it by now, unless a wall or the zone's edge is in the way. */
export function walkedTo(w: World, p: Player): Vec2 {
  const state = { x: p.x, y: p.y, t: p.inputAt, moving: true, angle: p.facing, speed: p.moveSpeed };
  const to = deadReckon(state, w.now);
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
 * Stands a walker where observers have it now; the stop is dated now. Its client is not told
 * (a death tells it after): when its inputs come again they walk on from its newest input
 * (Player.lastInput), and the move checks start there.
 */
export function standWalker(w: World, p: Player): void {
  if (!p.moving) return;
  const at = walkedTo(w, p);
  if (at !== p) {
    p.x = at.x;
    p.y = at.y;
    playerMoved(w, p);
  }
  p.inputAt = w.now;
  p.moving = false;
  p.moveSpeed = 0;
  w.walking.delete(p);
  w.moved.add(p);
}
