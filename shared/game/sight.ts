/**
 * Line of sight, as the server judges a cast: a thin line between the two centres that no wall
 * crosses (no body clearance: a spell is not a walker). The server refuses a cast that fails
 * it ('lineOfSight'), so a client that picks targets for the player asks the same question.
 */
import { distance, segmentBlocked, type Rect, type Vec2 } from './movement.js';

export function inSight(a: Vec2, b: Vec2, walls: readonly Rect[]): boolean {
  return !segmentBlocked(a, b, walls, 0);
}

export interface Candidate extends Vec2 {
  id: number;
}

/**
 * Candidates in the order "target nearest enemy" offers them: those in sight of `from` first,
 * each group nearest first (ties by id, so the order is stable from one key press to the next).
 */
export function sightFirst<T extends Candidate>(
  from: Vec2,
  candidates: readonly T[],
  walls: readonly Rect[],
): T[] {
  return candidates
    .map((c) => ({ c, hidden: inSight(from, c, walls) ? 0 : 1, d: distance(from, c) }))
    .sort((a, b) => a.hidden - b.hidden || a.d - b.d || a.c.id - b.c.id)
    .map((x) => x.c);
}
