/**
 * Hand-off at a border. A player walks on from its zone's ground into an open neighbour's
 * (the move checks allow the neighbour's ground within the strip, against both zones' walls);
 * once it stands HANDOFF_MARGIN past the line, its zone hands it on: `handedOff` carries its
 * whole state, and the entity stays here, in place, as a ghost of the next zone (same id, same
 * observers: nobody here sees it leave), held until that zone's strip shows it. The next zone
 * makes it a player again under the same id (`arrive`): observers there held its ghost and
 * keep it, and its own client is told the zone changed and sent its view anew. Walking back
 * needs HANDOFF_MARGIN past the line the other way, so a player on the line does not bounce.
 */
import { blocked, clampToZone, insideZone, type Vec2 } from '../../shared/game/movement.js';
import { CellSet } from './cell-set.js';
import { grown, pointInArea, stripDepth } from './border.js';
import { ghostState, sameMotion } from './ghosts.js';
import { relocate } from './move-epoch.js';
import { IdMap, IdSet } from './id-table.js';
import { newTimeline } from './timeline.js';
import type { HandoffState, Player, ZoneData } from './types.js';
import {
  activate,
  emit,
  forgetPlayer,
  keptPlace,
  playerMoved,
  savedCharacter,
  showInCell,
  type World,
} from './world.js';

/** How far past the line a player must stand to be handed to the zone beyond it. */
export const HANDOFF_MARGIN = 16;
/**
 * How long a player just handed on stays here as a ghost without the next zone's strip showing
 * it: longer than a hand-off to another host may wait for its answer (three requests of a
 * second, HandoffDesk.askHandoff), so a player given back was never seen to leave.
 */
export const HANDOFF_HOLD_MS = 4000;

/**
 * Whether a player may stand at `to`: on the zone's ground, or an open neighbour's near the
 * line. The zones' ground is one: a player straddles the line freely, and keeps its radius
 * from the outer edges of the zones together.
 */
export function walkable(w: World, to: Vec2): boolean {
  if (insideZone(to, w.zone)) return true;
  if (w.openBorders.length === 0 || !pointInArea(to, grown(w.zone, stripDepth(w.rules)))) return false;
  if (!insideZone(to, w.zone, 0) && !w.openBorders.some((n) => insideZone(to, n, 0))) return false;
  return insideZone(to, bounds([w.zone, ...w.openBorders]));
}

/** The rectangle around several. */
function bounds(areas: readonly ZoneData[]): { x: number; y: number; width: number; height: number } {
  const x = Math.min(...areas.map((a) => a.x));
  const y = Math.min(...areas.map((a) => a.y));
  const width = Math.max(...areas.map((a) => a.x + a.width)) - x;
  const height = Math.max(...areas.map((a) => a.y + a.height)) - y;
  return { x, y, width, height };
}

/** Hands on every player that moved this step and stands past the margin in an open neighbour. */
export function handOffCrossers(w: World): void {
  if (w.openBorders.length === 0) return;
  for (const p of w.moved) {
    if (!p.alive || !w.players.has(p.id) || insideZone(p, w.zone, 0)) continue;
    const to = w.openBorders.find((n) => insideZone(p, n, HANDOFF_MARGIN));
    if (to) handOff(w, p, to.name);
  }
}

function handOff(w: World, p: Player, to: string): void {
  const state = handoffState(p);
  // Its own view goes with it (the next zone sends its client the view there); those who see
  // it keep it, as a ghost of the next zone, in the same cell.
  forgetPlayer(w, p);
  activate(w, p.cell, -1);
  w.playerGrid.remove(p);
  p.cast = null;
  p.logoutAt = null;
  w.ghostGrid.insert(p);
  activate(w, p.cell, 1);
  w.ghosts.set(p.id, { entity: p, from: to, heldUntil: w.now + HANDOFF_HOLD_MS });
  emit(w, { type: 'handedOff', sessionId: p.sessionId, playerId: p.id, to, state });
}

export function handoffState(p: Player): HandoffState {
  // The next zone checks its client's moves from where it is handed over, so from where its
  // client is, as this zone would have.
  const at = keptPlace(p);
  return {
    entity: { ...ghostState(p), x: at.x, y: at.y },
    characterId: p.characterId,
    mana: p.mana,
    maxMana: p.maxMana,
    kills: p.kills,
    experience: p.experience,
    spells: [...p.spells],
    lastSeq: p.lastSeq,
    moveEpoch: p.moveEpoch,
    lastMoveAt: p.lastMoveAt,
    lastClientTime: p.lastClientTime,
    timeBank: p.timeBank,
    moving: p.moving,
    moveSpeed: p.moveSpeed,
    clockOffset: p.clockOffset,
    inputAt: at.inputAt,
    sentInputAt: p.sentInputAt,
    cast: p.cast ? { spellId: p.cast.spell.id, targetId: p.cast.targetId, endsAt: p.cast.endsAt } : null,
    cooldowns: [...p.cooldowns],
    logoutAt: p.logoutAt,
    lastCombatAt: p.lastCombatAt,
    respawnAt: p.respawnAt,
    nextManaRegenAt: p.nextManaRegenAt,
    chatTokens: p.chatTokens,
    chatRefilledAt: p.chatRefilledAt,
    queued: p.timeline.queue.flatMap(({ input, due }) => {
      if (input.type !== 'move') return [];
      const { seq, x, y, facing, moving, speed, clientTime, epoch = p.moveEpoch } = input;
      return [{ move: { seq, x, y, facing, moving, speed, clientTime, epoch }, due }];
    }),
    lateness: p.timeline.lateness.samples(),
    held: p.timeline.held,
    late: p.timeline.late,
  };
}

/**
 * A player given back to this zone (the zone beside did not take it) stands past the line:
 * it steps back onto this zone's ground, and its client snaps there, so it is not left on
 * ground it may not walk once the border closes.
 */
function stepBack(w: World, p: Player): void {
  const back = clampToZone(p, w.zone);
  if (blocked(back, w.walls)) return;
  p.x = back.x;
  p.y = back.y;
  p.moving = false;
  p.moveSpeed = 0;
  w.walking.delete(p);
  playerMoved(w, p);
  relocate(w, p, 'bounds');
}

/**
 * A player handed over from the zone beside this one becomes this zone's, under its id. The
 * ghost this zone held of it gives way to it in place: its observers keep seeing it.
 */
export function arrivePlayer(w: World, sessionId: number, s: HandoffState): Player | undefined {
  const e = s.entity;
  if (w.players.has(e.id)) return undefined;
  const sent = e.sent ?? { x: e.x, y: e.y, t: w.now, moving: false, angle: e.facing, speed: 0 };
  const spell = s.cast ? w.data.spells.get(s.cast.spellId) : undefined;
  const p: Player = {
    kind: 'player',
    id: e.id,
    name: e.name,
    level: e.level,
    x: e.x,
    y: e.y,
    facing: e.facing,
    speed: e.speed,
    health: e.health,
    maxHealth: e.maxHealth,
    alive: e.alive,
    appearance: e.appearance,
    observers: new IdSet(),
    observerList: null,
    cell: -1,
    slot: -1,
    sessionId,
    characterId: s.characterId,
    mana: s.mana,
    maxMana: s.maxMana,
    kills: s.kills,
    experience: s.experience,
    spells: [...s.spells],
    visible: new IdMap(),
    viewCells: new CellSet(w.playerGrid.cells.length),
    viewX: e.x,
    viewY: e.y,
    lastSeq: s.lastSeq,
    moveEpoch: s.moveEpoch,
    lastMoveAt: s.lastMoveAt,
    lastClientTime: s.lastClientTime,
    timeBank: s.timeBank,
    moving: s.moving,
    moveSpeed: s.moveSpeed,
    sent: { ...sent },
    clockOffset: s.clockOffset,
    inputAt: s.inputAt,
    sentInputAt: s.sentInputAt,
    lastInput: { x: e.x, y: e.y },
    timeline: newTimeline(w.now),
    cast: spell && s.cast ? { spell, targetId: s.cast.targetId, endsAt: s.cast.endsAt } : null,
    cooldowns: new Map(s.cooldowns),
    logoutAt: s.logoutAt,
    lastCombatAt: s.lastCombatAt,
    respawnAt: s.respawnAt,
    nextManaRegenAt: s.nextManaRegenAt,
    chatTokens: s.chatTokens,
    chatRefilledAt: s.chatRefilledAt,
  };
  const ghost = w.ghosts.get(p.id);
  if (ghost) {
    // The ghost's observers see the player from now on: the same entity to them.
    w.ghosts.delete(p.id);
    activate(w, ghost.entity.cell, -1);
    w.ghostGrid.remove(ghost.entity);
    p.observers = ghost.entity.observers;
    for (const oid of p.observers) w.players.get(oid)?.visible.set(p.id, p);
    // They reckon it from what its old zone's strip last showed, which is a tick behind: a
    // stop (or turn) made in the input that carried it over the line never reached them, and
    // they would draw it walking on. Its motion goes out to them anew when the two differ.
    const told = ghost.entity.kind === 'player' ? ghost.entity.sent : undefined;
    if (told && !sameMotion(told, p.sent)) {
      p.sent = { ...told };
      p.sentInputAt = p.sent.t;
      w.moved.add(p);
    }
  }
  p.timeline.lateness.restore(s.lateness);
  p.timeline.held = s.held;
  p.timeline.late = s.late;
  for (const { move, due } of s.queued) {
    p.timeline.queue.push({ input: { type: 'move', entityId: p.id, ...move }, due });
    p.timeline.lastDue = Math.max(p.timeline.lastDue, due);
  }
  if (p.timeline.queue.length > 0) w.queuedMoves.add(p);
  w.players.set(p.id, p);
  w.playerGrid.insert(p);
  activate(w, p.cell, 1);
  showInCell(w, p);
  w.viewDirty.add(p);
  if (p.moving) w.walking.add(p);
  if (p.cast) w.casting.add(p);
  if (p.logoutAt !== null) w.loggingOut.add(p);
  if (!p.alive) w.deadPlayers.add(p);
  emit(w, { type: 'joined', sessionId, playerId: p.id });
  emit(w, { type: 'arrived', player: p });
  if (!insideZone(p, w.zone, 0)) stepBack(w, p);
  // Saved at once with its new zone: a login or resume elsewhere reads the row's zone to find
  // which host holds the character, and must not enter it again where it was before the line.
  emit(w, { type: 'save', sessionId, playerId: p.id, character: savedCharacter(w, p) });
  return p;
}
