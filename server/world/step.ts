/**
 * One tick of a zone: `step(world, inputs, now, rng) -> { state, events }`.
 *
 * Order within a step (the order things happen in):
 *   1. inputs, in arrival order, none skipped (join, leave, detach, attach, move, cast,
 *      cancelCast, chat, logout, logoutCancel; a neighbour's strip, with the hits its
 *      players landed here and the kills ours made there); a move waits in its player's
 *      queue until its time on the server's clock (timeline.ts), and a cast or logout made
 *      after queued moves waits behind them; what is due by now takes effect after the inputs
 *   2. cast bars that ran out; projectiles that arrive (hits, health, deaths)
 *   3. combat settles: the fallen become corpses or wait to respawn, hit mobs turn on
 *      their attackers
 *   4. mobs in active cells (AI, walking, melee); combat settles again; corpse decay and
 *      mob respawn
 *   5. player respawn, mana regeneration, logout timers
 *   6. movement: walkers whose inputs fell silent stop; a motion event per player whose
 *      state observers dead-reckon from is no longer good enough; one acceptance per player
 *   7. interest: views that moved gain and lose cells (seen / unseen)
 * Systems do not call each other back: combat records who fell and who was provoked, and
 * the step settles them here, so this order is the order things happen. Entities crossing
 * cells, appearing and leaving update who sees them as it happens. The world is mutated in
 * place; `state` is the same object, returned for symmetry. The events are the world's own
 * vocabulary (types.ts): subscribers decide what they become.
 */
import {
  deadReckon,
  INPUT_GRACE_MS,
  INPUT_OVERDUE_MS,
  MOTION_ERROR_UNITS,
  MOTION_HEARTBEAT_MS,
} from '../../shared/game/motion.js';
import {
  blocked,
  distance,
  MOVE_SLACK_UNITS,
  MOVE_TOLERANCE,
  segmentBlocked,
} from '../../shared/game/movement.js';
import { quantizeAngle, quantizeSpeed } from '../../shared/protocol/records.js';
import { MAX_CHAT_BYTES } from '../../shared/protocol/index.js';
import {
  applyBorderNews,
  breakCast,
  finishCasts,
  landProjectiles,
  playerDied,
  regenerate,
  respawnPlayers,
  startCast,
} from './combat.js';
import { applyStrip } from './ghosts.js';
import { arrivePlayer, handOffCrossers, walkable } from './handoff.js';
import { updateInterest } from './interest.js';
import { refuseMove, staleMove } from './move-epoch.js';
import { engage, killMob, simulateMobs, updateDeadMobs } from './mobs.js';
import type { Rng } from '../../shared/game/rng.js';
import { creditKill } from './experience.js';
import { place } from './timeline.js';
import { departure, standWalker, stopTime, turnCorner } from './walkers.js';
import type { MoveInput, MoveRefusal, Player, TimedInput, WorldEvent, WorldInput } from './types.js';
import { addPlayer, attachPlayer, emit, playerMoved, removePlayer, type World } from './world.js';

export interface StepResult {
  state: World;
  events: WorldEvent[];
}

export function step(w: World, inputs: readonly WorldInput[], now: number, rng: Rng): StepResult {
  w.now = Math.max(w.now, now);
  w.tick++;
  w.rng = rng;
  for (const input of inputs) applyInput(w, input);
  releaseMoves(w);
  finishCasts(w);
  landProjectiles(w);
  settleCombat(w);
  simulateMobs(w);
  settleCombat(w);
  updateDeadMobs(w);
  respawnPlayers(w);
  regenerate(w);
  expireLogouts(w);
  holdSilentWalkers(w);
  updateMotion(w);
  updateInterest(w);
  handOffCrossers(w);
  w.moved.clear();
  const events = w.events;
  w.events = [];
  return { state: w, events };
}

/** What combat left this step: the fallen are settled, then provoked mobs turn on who hit them. */
function settleCombat(w: World): void {
  for (const { entity, killer } of w.fallen) {
    if (entity.kind === 'player') {
      playerDied(w, entity);
      continue;
    }
    killMob(w, entity);
    if (killer?.kind === 'player') creditKill(w, killer, entity.id, entity.level);
  }
  w.fallen.length = 0;
  for (const { mob, by } of w.provoked) if (mob.alive && mob.state !== 'chase') engage(w, mob, by);
  w.provoked.length = 0;
}

function applyInput(w: World, input: WorldInput): void {
  if (input.type === 'join') {
    addPlayer(w, input.sessionId, input.character, w.now);
    return;
  }
  if (input.type === 'strip') {
    applyStrip(w, input.from, input.entities);
    if (input.hits?.length || input.kills?.length)
      applyBorderNews(w, input.from, input.hits ?? [], input.kills ?? []);
    return;
  }
  if (input.type === 'arrive') {
    arrivePlayer(w, input.sessionId, input.state);
    return;
  }
  const p = w.players.get(input.entityId);
  // An input for a player that already left (queued before the leave) has nothing to act on.
  if (!p) return;
  switch (input.type) {
    case 'leave':
      removePlayer(w, p, input.reason);
      return;
    case 'detach':
      flushMoves(w, p);
      standWalker(w, p);
      return;
    case 'attach':
      // Its client starts again from EnterWorld, standing: a walker stops where it is seen.
      standWalker(w, p);
      attachPlayer(w, p, input.sessionId);
      return;
    case 'move':
      queueMove(w, p, input);
      return;
    case 'cast':
    case 'cancelCast':
    case 'logout':
    case 'logoutCancel':
      // Made after the moves still queued: it acts where they put the player, when they have.
      if (p.timeline.queue.length > 0) p.timeline.queue.push({ input, due: p.timeline.lastDue });
      else act(w, p, input, w.now);
      return;
    case 'chat':
      applyChat(w, p, input.channel, input.text, input.receivedAt);
      return;
  }
}

/** A player's own input that takes effect on its timeline (timeline.ts), at `at`. */
function act(w: World, p: Player, input: TimedInput, at: number): void {
  switch (input.type) {
    case 'move':
      applyMove(w, p, input, at);
      return;
    case 'cast':
      startCast(w, p, input.spellId, input.targetId);
      return;
    case 'cancelCast':
      breakCast(w, p, 'cancelled');
      return;
    case 'logout':
      if (p.logoutAt !== null) return;
      p.logoutAt = w.now + w.rules.logoutDelay;
      w.loggingOut.add(p);
      emit(w, { type: 'logoutStarted', player: p, delay: w.rules.logoutDelay });
      return;
    case 'logoutCancel':
      cancelLogout(w, p);
      return;
  }
}

// ------------------------------------------------------------ movement

/** A sent state this far from where the player is gets a snap (JUMP), not a blend. */
const JUMP_UNITS = 64;

/** A MoveInput arrived: it waits in its player's queue for its time on the server's clock. */
function queueMove(w: World, p: Player, m: MoveInput): void {
  const tl = p.timeline;
  const arrived = Math.min(w.now, m.receivedAt ?? w.now);
  const standing = !p.moving && tl.queue.length === 0;
  const placed = place(tl, p.clockOffset, m.clientTime, arrived, standing);
  p.clockOffset = placed.offset;
  tl.queue.push({ input: m, due: placed.due });
  w.queuedMoves.add(p);
}

/** The queued inputs whose time has come take effect, each player's in order. */
function releaseMoves(w: World): void {
  for (const p of w.queuedMoves) {
    const queue = p.timeline.queue;
    while (queue.length > 0 && queue[0]!.due <= w.now) {
      const { input, due } = queue.shift()!;
      act(w, p, input, due);
    }
    if (queue.length === 0) w.queuedMoves.delete(p);
  }
}

/**
 * Everything the player queued takes effect now (its connection dropped): moves not yet due
 * are dated now, so watchers see the walker hurry to where it is, never run past it.
 */
function flushMoves(w: World, p: Player): void {
  const queue = p.timeline.queue;
  if (queue.length === 0) return;
  for (const { input, due } of queue.splice(0, queue.length)) act(w, p, input, Math.min(due, w.now));
  w.queuedMoves.delete(p);
}

/**
 * A MoveInput is the client's movement state: where it is at its clientTime, whether it
 * walks, its heading and speed. The server checks bounds, walls and speed.
 *
 * The speed check runs on the client's clock: a move may cover speed × MOVE_TOLERANCE for
 * the client time since the previous move (plus MOVE_SLACK_UNITS). The client may not claim
 * more time than passed on the server: claimed time is spent from a bank that refills with
 * server time up to moveBurstMs. Inputs that bunch up behind a stall spend what the bank
 * saved while they were on the way, so an honest client is never corrected for a late
 * burst; a client whose clock runs fast empties the bank and is corrected. A move from
 * standing is charged only the walking its distance needed, not the time stood still.
 * `at` is its time on the timeline (timeline.ts): what its motion state is dated.
 */
function applyMove(w: World, p: Player, m: MoveInput, at: number): void {
  if (staleMove(p, m)) return;
  const correct = (reason: MoveRefusal): void => {
    refuseMove(w, p, m.seq, reason);
    // The client snaps back and stands; observers see it stand where the server has it.
    if (p.moving) {
      p.moving = false;
      p.moveSpeed = 0;
      w.walking.delete(p);
      w.moved.add(p);
    }
  };
  if (!p.alive) return correct('dead');
  const to = { x: m.x, y: m.y };
  if (!Number.isFinite(m.x) || !Number.isFinite(m.y) || !walkable(w, to)) return correct('bounds');
  // The client claims a walk from where its last accepted input had it (lastInput), over the
  // client time since: the checks start there. The centre line may not pass through a wall
  // either (no hopping over thin walls).
  const from = p.lastInput;
  if (blocked(to, w.walls) || segmentBlocked(from, to, w.walls, 0)) return correct('obstacle');
  const elapsed = Math.max(0, w.now - p.lastMoveAt);
  p.lastMoveAt = w.now;
  p.timeBank = Math.min(w.rules.moveBurstMs, p.timeBank + elapsed);
  // The first move has no earlier client time to go by: it may claim what the bank holds.
  const claimed =
    p.lastClientTime === undefined
      ? p.timeBank
      : Number.isFinite(m.clientTime)
        ? Math.max(0, m.clientTime - p.lastClientTime)
        : elapsed;
  const allowed = Math.min(claimed, p.timeBank);
  const d = distance(from, to);
  if (d > (p.speed * MOVE_TOLERANCE * allowed) / 1000 + MOVE_SLACK_UNITS) return correct('speed');
  // A move from standing (or the first) spends only the walking its distance needed. The
  // time it claims is mostly time stood still, which the bank held only up to moveBurstMs:
  // charged in full it would leave the bank nearly empty just as a walk begins, and a start
  // that a stall held back would take the bank from the heartbeats queued behind it. Either
  // way every unit walked past the slack is paid for, so over any span the bank allows no
  // more than the server time that passed plus moveBurstMs of walking.
  const needed = d <= MOVE_SLACK_UNITS ? 0 : ((d - MOVE_SLACK_UNITS) * 1000) / (p.speed * MOVE_TOLERANCE);
  p.timeBank -= p.lastClientTime === undefined || !p.moving ? Math.min(allowed, needed) : allowed;
  p.lastSeq = m.seq;
  if (Number.isFinite(m.clientTime)) p.lastClientTime = m.clientTime;
  const speed = Number.isFinite(m.speed) ? Math.min(Math.max(0, m.speed), p.speed) : p.speed;
  const moving = m.moving && speed > 0;
  const facing = Number.isFinite(m.facing) ? m.facing : p.facing;
  // A change of course is placed where the walk made it, a start where the walk left its
  // spot, a stop dated when the walk reached it (walkers.ts): each reads the walker's newest
  // state, before it moves. A turn back may end where the state before it began: placed at
  // its corner all the same.
  const t = Math.min(w.now, at);
  const next = { ...to, t, moving, angle: facing, speed };
  const corner = moving ? (turnCorner(w, p, next) ?? departure(w, p, next)) : undefined;
  const moved = distance(p, to) > 0 || corner !== undefined;
  p.inputAt = corner ? corner.t : moving ? t : stopTime(p, to, t);
  w.acks.add(p);
  if (moved) {
    p.x = corner ? corner.x : to.x;
    p.y = corner ? corner.y : to.y;
    breakCast(w, p, 'interrupted');
    cancelLogout(w, p);
    playerMoved(w, p);
  }
  p.lastInput.x = m.x;
  p.lastInput.y = m.y;
  p.facing = facing;
  p.moving = moving;
  p.moveSpeed = p.moving ? speed : 0;
  if (p.moving) w.walking.add(p);
  else w.walking.delete(p);
  w.moved.add(p);
}

/**
 * A walker whose next input is overdue on its timeline (a stall on its link longer than any
 * its offset allows for, or a link gone) is held from the moment it became overdue, where its
 * newest state had carried it by then (INPUT_OVERDUE_MS): not walked on until its inputs come
 * again. Its client sends one at least every CLIENT_HEARTBEAT_MS while it walks, and sends a
 * stop the frame it stops, so up to then the walk went on as its newest state says, unless a
 * stop is stuck on the link; past it, nothing vouches for the walk. The hold is decided
 * INPUT_GRACE_MS later (a frame that hitched is not a stall) and dated back, which no watcher
 * has drawn past yet. Counted with the late inputs: the stall was longer than any in the
 * player's lateness window.
 */
function holdSilentWalkers(w: World): void {
  for (const p of w.walking) {
    if (p.timeline.queue.length > 0) continue;
    const overdueAt = Math.max(p.inputAt, p.timeline.lastDue) + INPUT_OVERDUE_MS;
    if (w.now < overdueAt + INPUT_GRACE_MS) continue;
    standWalker(w, p, overdueAt);
    p.timeline.late++;
  }
}

/**
 * Sends a player's motion state again when what observers dead-reckon from it no longer
 * holds: it started or stopped, turned, changed speed, strayed more than
 * MOTION_ERROR_UNITS, or has walked MOTION_HEARTBEAT_MS since the last one.
 */
function updateMotion(w: World): void {
  const now = w.now;
  for (const p of w.moved) {
    const s = p.sent;
    let send: boolean;
    if (p.moving !== s.moving) send = true;
    else if (p.moving) {
      // Positions compared at the times they held (each input's own time on the server's
      // clock), so the jitter of when inputs arrive is not taken for a change of course.
      const since = p.inputAt - p.sentInputAt;
      send =
        quantizeAngle(p.facing) !== quantizeAngle(s.angle) ||
        quantizeSpeed(p.moveSpeed) !== quantizeSpeed(s.speed) ||
        now - s.t >= MOTION_HEARTBEAT_MS ||
        distance(deadReckon(s, s.t + since), p) > MOTION_ERROR_UNITS;
    } else {
      send = s.x !== p.x || s.y !== p.y || quantizeAngle(p.facing) !== quantizeAngle(s.angle);
    }
    if (!send) continue;
    const jump = distance(deadReckon(s, now), p) > JUMP_UNITS;
    // A player was at (x, y) when its client sent the input, not when the tick ran: observers
    // reckon on from that time, so the wait for the tick and the link's jitter do not show
    // as changes of speed, and a stop or turn is placed where it happened on the old course.
    const t = Math.min(now, p.inputAt);
    p.sent = { x: p.x, y: p.y, t, moving: p.moving, angle: p.facing, speed: p.moveSpeed };
    p.sentInputAt = p.inputAt;
    emit(w, { type: 'motion', entity: p, jump });
  }
  for (const p of w.acks) emit(w, { type: 'moveAccepted', player: p, seq: p.lastSeq });
  w.acks.clear();
}

// ------------------------------------------------------------ logout

function cancelLogout(w: World, p: Player): void {
  if (p.logoutAt === null) return;
  p.logoutAt = null;
  w.loggingOut.delete(p);
  emit(w, { type: 'logoutCancelled', player: p });
}

/**
 * A logout runs out unless its player fights meanwhile: a blow dealt or taken, or a cast,
 * stops the countdown as a step does. A logout is no more a way out of a fight than closing
 * the socket is (that lingers COMBAT_LINGER_MS after the last blow).
 */
function expireLogouts(w: World): void {
  for (const p of w.loggingOut) {
    if (p.logoutAt === null) continue;
    if (p.lastCombatAt > p.logoutAt - w.rules.logoutDelay) cancelLogout(w, p);
    else if (w.now >= p.logoutAt) removePlayer(w, p, 'logout');
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

function applyChat(w: World, p: Player, channel: 'say' | 'zone', text: string, saidAt = w.now): void {
  if (utf8Length(text) > MAX_CHAT_BYTES)
    return emit(w, { type: 'chatRefused', player: p, reason: 'tooLong' });
  const r = w.rules;
  // Refilled up to when the line was said (never past this tick, never back before the last).
  const at = Math.min(w.now, Math.max(p.chatRefilledAt, saidAt));
  p.chatTokens = Math.min(r.chatBurst, p.chatTokens + ((at - p.chatRefilledAt) / 1000) * r.chatPerSecond);
  p.chatRefilledAt = at;
  if (p.chatTokens < 1) return emit(w, { type: 'chatRefused', player: p, reason: 'rateLimited' });
  p.chatTokens -= 1;
  if (text.trim().length === 0) return;
  if (channel === 'zone') return emit(w, { type: 'shouted', speaker: p, text });
  const hearers = [p.id];
  for (const id of p.observers) {
    const o = w.players.get(id);
    if (o && distance(o, p) <= r.sayRange) hearers.push(id);
  }
  emit(w, { type: 'said', speaker: p, text, hearers });
}
