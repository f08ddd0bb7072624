/**
 * Move epochs: a player's discontinuities, counted. Whenever the server puts a player
 * somewhere its client did not walk it (a refused move, a death, the respawn, a hand-off
 * given back, a new connection taking the character over) a new epoch starts, and the
 * client is told once: PositionCorrection (or EnterWorld) carries it. The client stamps every
 * MoveInput with the newest epoch it was told, so an input still in flight from before the
 * event says so, and is dropped here unanswered: never corrected again (a correction cascade),
 * never acknowledged (an ack would confirm a position from before the jump), never applied
 * (it would drag the player back to where it was).
 */
import type { MoveInput, MoveRefusal, Player, Relocation } from './types.js';
import { emit, nextMoveEpoch, type World } from './world.js';

/**
 * Whether a move was made before a discontinuity its client has yet to hear of: one of an
 * older epoch, or any move of a player that fell earlier in this step (a hit from across the
 * border lands among the inputs) and whose death, settled later in the step, tells the client.
 */
export function staleMove(p: Player, m: MoveInput): boolean {
  if (!p.alive && p.respawnAt === null) return true;
  return m.epoch !== undefined && m.epoch !== p.moveEpoch;
}

/** Move `seq` is refused: the player stays where it is, and its client is told so in a new epoch. */
export function refuseMove(w: World, p: Player, seq: number, reason: MoveRefusal): void {
  told(p);
  const epoch = nextMoveEpoch(w, p);
  emit(w, { type: 'moveRefused', player: p, seq, x: p.x, y: p.y, facing: p.facing, reason, epoch });
}

/** The server put the player where it stands now: its client is told so in a new epoch. */
export function relocate(w: World, p: Player, reason: Relocation): void {
  told(p);
  const epoch = nextMoveEpoch(w, p);
  emit(w, { type: 'relocated', player: p, seq: p.lastSeq, x: p.x, y: p.y, facing: p.facing, reason, epoch });
}

/** Its client is told where the player stands and walks on from there: the move checks too. */
function told(p: Player): void {
  p.lastInput.x = p.x;
  p.lastInput.y = p.y;
}
