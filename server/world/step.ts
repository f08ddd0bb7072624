/**
 * One tick of a zone: `step(world, inputs, now, rng) -> { state, events }`.
 *
 * Order within a step:
 *   1. inputs, in arrival order, none skipped (join, leave, move, cast, cancelCast, chat,
 *      logout, logoutCancel)
 *   2. cast bars that ran out; projectiles that arrive
 *   3. mobs in active cells (AI, walking, melee); corpse decay and mob respawn
 *   4. player respawn, mana regeneration, logout timers
 *   5. one EntityMove per player that moved (the newest position only)
 *   6. interest: spawns and despawns per observer
 * The world is mutated in place; `state` is the same object, returned for symmetry.
 */
import {
  blocked,
  distance,
  insideZone,
  MOVE_SLACK_UNITS,
  MOVE_TOLERANCE,
  segmentBlocked,
} from '../../shared/game/movement.js';
import { ChatSend, ErrorCode, errorMessage, MAX_CHAT_BYTES } from '../../shared/protocol/index.js';
import { breakCast, finishCasts, landProjectiles, regenerate, respawnPlayers, startCast } from './combat.js';
import { updateInterest } from './interest.js';
import { simulateMobs, updateDeadMobs } from './mobs.js';
import type { Rng } from '../../shared/game/rng.js';
import type { Player, WorldEvent, WorldInput } from './types.js';
import {
  addPlayer,
  moveBudgetCap,
  playerMoved,
  removePlayer,
  toObservers,
  toPlayer,
  type World,
} from './world.js';

export interface StepResult {
  state: World;
  events: WorldEvent[];
}

export function step(w: World, inputs: readonly WorldInput[], now: number, rng: Rng): StepResult {
  w.now = Math.max(w.now, now);
  w.tick++;
  w.rng = rng;
  for (const input of inputs) applyInput(w, input);
  finishCasts(w);
  landProjectiles(w);
  simulateMobs(w);
  updateDeadMobs(w);
  respawnPlayers(w);
  regenerate(w);
  expireLogouts(w);
  broadcastMoves(w);
  updateInterest(w);
  w.moved.clear();
  const events = w.events;
  w.events = [];
  return { state: w, events };
}

function applyInput(w: World, input: WorldInput): void {
  if (input.type === 'join') {
    addPlayer(w, input.sessionId, input.character, w.now);
    return;
  }
  const p = w.players.get(input.entityId);
  // An input for a player that already left (queued before the leave) has nothing to act on.
  if (!p) return;
  switch (input.type) {
    case 'leave':
      removePlayer(w, p, input.reason);
      return;
    case 'move':
      applyMove(w, p, input.seq, input.x, input.y, input.facing);
      return;
    case 'cast':
      startCast(w, p, input.spellId, input.targetId);
      return;
    case 'cancelCast':
      breakCast(w, p, 'cancelled');
      return;
    case 'chat':
      applyChat(w, p, input.channel, input.text);
      return;
    case 'logout':
      if (p.logoutAt !== null) return;
      p.logoutAt = w.now + w.rules.logoutDelay;
      w.loggingOut.add(p);
      toPlayer(w, p.id, { packet: 'LogoutStarted', data: { delay: w.rules.logoutDelay } });
      return;
    case 'logoutCancel':
      cancelLogout(w, p);
      return;
  }
}

// ------------------------------------------------------------ movement

/**
 * The speed check is a budget of distance: it refills at speed × MOVE_TOLERANCE per second
 * of server time since the last move, up to moveBurstMs worth, and each move spends its
 * length (plus MOVE_SLACK_UNITS of grace). Inputs that bunch up on the wire spend banked
 * distance instead of being refused; a client that runs faster than the tolerance for
 * longer than the burst is corrected.
 */
function applyMove(w: World, p: Player, seq: number, x: number, y: number, facing: number): void {
  const correct = (reason: 'speed' | 'bounds' | 'obstacle' | 'dead'): void =>
    toPlayer(w, p.id, {
      packet: 'PositionCorrection',
      data: { seq, x: p.x, y: p.y, facing: p.facing, reason },
    });
  if (!p.alive) return correct('dead');
  const to = { x, y };
  if (!Number.isFinite(x) || !Number.isFinite(y) || !insideZone(to, w.zone)) return correct('bounds');
  // The centre line may not pass through a wall either (no hopping over thin walls).
  if (blocked(to, w.zone.obstacles) || segmentBlocked(p, to, w.zone.obstacles, 0)) return correct('obstacle');
  const elapsed = Math.max(0, w.now - p.lastMoveAt);
  p.moveBudget = Math.min(
    moveBudgetCap(w, p.speed),
    p.moveBudget + (p.speed * MOVE_TOLERANCE * elapsed) / 1000,
  );
  p.lastMoveAt = w.now;
  const d = distance(p, to);
  if (d > p.moveBudget + MOVE_SLACK_UNITS) return correct('speed');
  p.moveBudget = Math.max(0, p.moveBudget - d);
  p.lastSeq = seq;
  const face = Number.isFinite(facing) ? facing : p.facing;
  toPlayer(w, p.id, { packet: 'MoveAck', data: { seq } });
  if (d > 0) {
    p.x = x;
    p.y = y;
    p.facing = face;
    breakCast(w, p, 'interrupted');
    cancelLogout(w, p);
    playerMoved(w, p);
  } else if (face !== p.facing) {
    p.facing = face;
    w.moved.add(p);
  }
}

function broadcastMoves(w: World): void {
  for (const p of w.moved) {
    if (p.observers.size === 0) continue;
    toObservers(w, p, { packet: 'EntityMove', data: { id: p.id, x: p.x, y: p.y, facing: p.facing } }, false);
  }
}

// ------------------------------------------------------------ logout

function cancelLogout(w: World, p: Player): void {
  if (p.logoutAt === null) return;
  p.logoutAt = null;
  w.loggingOut.delete(p);
  toPlayer(w, p.id, { packet: 'LogoutCancelled', data: {} });
}

function expireLogouts(w: World): void {
  for (const p of w.loggingOut) {
    if (p.logoutAt !== null && w.now >= p.logoutAt) removePlayer(w, p, 'logout');
  }
}

// ------------------------------------------------------------ chat

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function chatError(w: World, p: Player, code: ErrorCode): void {
  toPlayer(w, p.id, {
    packet: 'Error',
    data: { code, reason: errorMessage(code), opcode: ChatSend.opcode, fatal: false },
  });
}

function applyChat(w: World, p: Player, channel: 'say' | 'zone', text: string): void {
  if (utf8Length(text) > MAX_CHAT_BYTES) return chatError(w, p, ErrorCode.ChatTooLong);
  const r = w.rules;
  p.chatTokens = Math.min(r.chatBurst, p.chatTokens + ((w.now - p.chatRefilledAt) / 1000) * r.chatPerSecond);
  p.chatRefilledAt = w.now;
  if (p.chatTokens < 1) return chatError(w, p, ErrorCode.RateLimited);
  p.chatTokens -= 1;
  if (text.trim().length === 0) return;
  const msg = { packet: 'ChatMessage', data: { channel, fromId: p.id, from: p.name, to: '', text } } as const;
  if (channel === 'zone') {
    w.events.push({ type: 'toZone', msg });
    return;
  }
  const hearers = [p.id];
  for (const id of p.observers) {
    const o = w.players.get(id);
    if (o && distance(o, p) <= r.sayRange) hearers.push(id);
  }
  w.events.push({ type: 'toPlayers', playerIds: hearers, msg });
}
