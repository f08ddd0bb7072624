/**
 * Where the server stands a walker it stops on its own (a death, a dropped connection, inputs
 * that stopped coming): not back at its newest input, but where that input's heading and
 * speed have carried it by now. Observers dead-reckon every walker from its newest state, so
 * that is where they draw it; stood anywhere else, it would slide back before their eyes.
 */
import { deadReckon } from '../../shared/game/motion.js';
import { blocked, insideZone, segmentBlocked, type Vec2 } from '../../shared/game/movement.js';
import type { Player } from './types.js';
import { playerMoved, type World } from './world.js';

/** Where a walker's newest state has carried it by now, unless a wall or the zone's edge is in the way. */
export function walkedTo(w: World, p: Player): Vec2 {
  const state = { x: p.x, y: p.y, t: p.inputAt, moving: true, angle: p.facing, speed: p.moveSpeed };
  const to = deadReckon(state, w.now);
  if (!insideZone(to, w.zone) || blocked(to, w.walls) || segmentBlocked(p, to, w.walls, 0)) return p;
  return to;
}

/** Stands a walker where observers have it now; the stop is dated now. */
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

/**
 * Holds a walker whose inputs stopped coming (a stall on its link, or a link gone): it
 * stands where observers have it, and remembers where its newest input had it, which the
 * move checks start from when inputs come again (they know nothing of the hold).
 */
export function holdWalker(w: World, p: Player): void {
  if (!p.moving) return;
  p.heldFrom ??= { x: p.x, y: p.y };
  standWalker(w, p);
}
