/**
 * Mob AI. A walking mob is one path record (start, speed, waypoints); server and client both
 * place it with positionAlongPath, so there are no per-tick moves on the wire. Only mobs in
 * active cells (a player within view range) think and walk; the rest cost nothing per step.
 *
 *   idle ──pause over──> wander ──arrived──> idle
 *     └──player within aggroRadius (or hit)──> chase ──too far from home / target dead or gone──> return ──> idle
 *   any ──health 0──> dead ──corpseTime──> (corpse despawns) ──respawnTime──> idle at home
 *
 * A chase aims where the target's movement state (the one its observers dead-reckon from)
 * puts it when the mob gets there, and keeps its route while the target keeps that course:
 * a walking target costs a path when it turns, stops or outruns the route's end, not one
 * every few steps it takes.
 */
import { deadReckon, type MotionState } from '../../shared/game/motion.js';
import {
  blocked,
  clampToZone,
  distance,
  ENTITY_RADIUS,
  insideZone,
  positionAlongPath,
  segmentBlocked,
  type Vec2,
} from '../../shared/game/movement.js';
import { applyDamage, hitAcross, inSight } from './combat.js';
import { randomInt, randomRange, type Rng } from '../../shared/game/rng.js';
import type { Mob, MobRoute, Player } from './types.js';
import { MAX_PATH_POINTS } from '../../shared/protocol/records.js';
import { emit, placeMob, refileMob, unplaceMob, wireCoord, type World } from './world.js';

/** A path record carries at most this many waypoints. */
const MAX_WAYPOINTS = MAX_PATH_POINTS;
/** A failed chase plan is retried after this long, not every step. */
const REPATH_DELAY = 500;
/** A chase aims at most this far ahead of the target. */
const CHASE_LEAD_MS = 1500;

/** Where `course` puts its walker at server time `t` (however far past the state). */
function along(course: MotionState, t: number): Vec2 {
  return deadReckon(course, t, Infinity);
}

/** Waypoints not yet reached at `now`. */
export function remainingRoute(route: MobRoute, now: number): Vec2[] {
  let left = route.speed * (Math.max(0, now - route.startTime) / 1000);
  let from = route.start;
  for (let i = 0; i < route.waypoints.length; i++) {
    const to = route.waypoints[i]!;
    const seg = distance(from, to);
    if (left < seg) return route.waypoints.slice(i);
    left -= seg;
    from = to;
  }
  return [];
}

function startRoute(w: World, m: Mob, waypoints: readonly Vec2[]): void {
  const wps = waypoints.slice(0, MAX_WAYPOINTS).map((p) => ({ x: wireCoord(p.x), y: wireCoord(p.y) }));
  m.route = { start: { x: m.x, y: m.y }, waypoints: wps, startTime: w.now, speed: m.speed };
  emit(w, { type: 'path', entity: m });
}

/** Stops a walking mob where it stands (a one-point path, so clients stop it at the same spot). */
function stopRoute(w: World, m: Mob): void {
  if (m.route) startRoute(w, m, [{ x: m.x, y: m.y }]);
}

/** Moves the mob to where its route puts it now; true when the route just ended. */
export function advanceMob(w: World, m: Mob): boolean {
  const r = m.route;
  if (!r) return false;
  const at = positionAlongPath(r.start, r.waypoints, r.speed, w.now - r.startTime);
  m.x = at.x;
  m.y = at.y;
  m.facing = at.facing;
  refileMob(w, m);
  if (at.arrived) m.route = null;
  return at.arrived;
}

function walkable(w: World, p: Vec2): boolean {
  return insideZone(p, w.zone) && !blocked(p, w.zone.obstacles);
}

/**
 * A route from `from` to `to` around walls: straight when clear, else through one or two
 * corners of an obstacle in the way (enough for the zone's rectangles); null when none works.
 */
export function planRoute(w: World, from: Vec2, to: Vec2): Vec2[] | null {
  const obstacles = w.zone.obstacles;
  if (!segmentBlocked(from, to, obstacles)) return [to];
  const pad = ENTITY_RADIUS + 2;
  let best: Vec2[] | null = null;
  let bestLen = Infinity;
  const consider = (route: Vec2[]): void => {
    let len = 0;
    let prev = from;
    for (const p of route) {
      if (segmentBlocked(prev, p, obstacles)) return;
      len += distance(prev, p);
      prev = p;
    }
    if (len < bestLen) {
      bestLen = len;
      best = route;
    }
  };
  for (const o of obstacles) {
    if (!segmentBlocked(from, to, [o])) continue;
    const corners = [
      { x: o.x - pad, y: o.y - pad },
      { x: o.x + o.w + pad, y: o.y - pad },
      { x: o.x + o.w + pad, y: o.y + o.h + pad },
      { x: o.x - pad, y: o.y + o.h + pad },
    ].filter((c) => walkable(w, c));
    for (const a of corners) {
      consider([a, to]);
      for (const b of corners) if (b !== a) consider([a, b, to]);
    }
  }
  return best;
}

function pause(w: World, m: Mob, rng: Rng): void {
  m.nextWanderAt = w.now + randomRange(rng, w.rules.wanderPauseMin, w.rules.wanderPauseMax);
}

/** A few waypoints within wanderRadius of home, each reachable in a straight line from the last. */
function wander(w: World, m: Mob, rng: Rng): void {
  const radius = m.template.wanderRadius;
  const waypoints: Vec2[] = [];
  let prev: Vec2 = { x: m.x, y: m.y };
  for (let i = 0; i < w.rules.wanderWaypoints && radius > 0; i++) {
    for (let attempt = 0; attempt < 6; attempt++) {
      const angle = rng() * Math.PI * 2;
      const dist = Math.sqrt(rng()) * radius;
      const p = { x: m.home.x + Math.cos(angle) * dist, y: m.home.y + Math.sin(angle) * dist };
      if (walkable(w, p) && !segmentBlocked(prev, p, w.zone.obstacles)) {
        waypoints.push(p);
        prev = p;
        break;
      }
    }
  }
  if (waypoints.length === 0) {
    pause(w, m, rng);
    return;
  }
  m.state = 'wander';
  startRoute(w, m, waypoints);
}

function findAggroTarget(w: World, m: Mob): Player | undefined {
  const r = m.template.aggroRadius;
  if (r <= 0) return undefined;
  const r2 = r * r;
  let best: Player | undefined;
  let bestD2 = Infinity;
  const g = w.playerGrid;
  for (let cy = g.fromY(m.y - r); cy <= g.toY(m.y + r); cy++) {
    for (let cx = g.fromX(m.x - r); cx <= g.toX(m.x + r); cx++) {
      for (const p of g.cells[cy * g.cols + cx]!) {
        const dx = p.x - m.x;
        const dy = p.y - m.y;
        const d2 = dx * dx + dy * dy;
        if (d2 <= r2 && d2 < bestD2 && p.alive && inSight(w, m, p)) {
          bestD2 = d2;
          best = p;
        }
      }
    }
  }
  return best;
}

/** Starts (or keeps) attacking `target`. */
export function engage(w: World, m: Mob, target: Player): void {
  if (!m.alive || m.state === 'return') return;
  m.state = 'chase';
  m.targetId = target.id;
  m.repathAt = 0;
  m.chaseCourse = null;
  chase(w, m);
}

/** Gives up: walks home and heals to full, ignoring players until it is back. */
function goHome(w: World, m: Mob): void {
  m.state = 'return';
  m.targetId = 0;
  if (m.health !== m.maxHealth) {
    m.health = m.maxHealth;
    emit(w, { type: 'health', entity: m });
  }
  startRoute(w, m, planRoute(w, { x: m.x, y: m.y }, m.home) ?? [m.home]);
}

/** The player a mob fights: one of this zone's, or one across the line (its ghost here). */
function targetOf(w: World, m: Mob): Player | undefined {
  const p = w.players.get(m.targetId);
  if (p) return p;
  const ghost = w.ghosts.get(m.targetId)?.entity;
  return ghost?.kind === 'player' ? ghost : undefined;
}

function chase(w: World, m: Mob): void {
  const t = targetOf(w, m);
  if (!t || !t.alive || distance(m, m.home) > w.rules.leashDistance) {
    goHome(w, m);
    return;
  }
  const range = w.rules.meleeRange;
  const d = distance(m, t);
  const end = m.route ? m.route.waypoints[m.route.waypoints.length - 1]! : m;
  if (d <= range) {
    if (m.route && distance(end, t) > range) stopRoute(w, m);
    if (w.now >= m.nextSwingAt) {
      m.nextSwingAt = w.now + m.template.swingTime;
      const amount = randomInt(w.rng, m.template.meleeMin, m.template.meleeMax);
      const across = w.ghosts.get(t.id);
      if (across) hitAcross(w, across.from, m, t, 0, 'damage', amount, false);
      else applyDamage(w, m, t, 0, amount, false);
    }
    return;
  }
  if (m.route) {
    // The target keeps the course the route aimed by: nothing to change.
    if (t.sent === m.chaseCourse) return;
    // A new state (a heartbeat, a small turn) that still meets the route's end will do.
    if (distance(end, along(t.sent, m.route.startTime + m.chaseLead)) <= w.rules.rechaseDistance) {
      m.chaseCourse = t.sent;
      return;
    }
  }
  if (w.now < m.repathAt) return;
  // Aim where the target will be when the mob gets there (as far as its course tells).
  const lead = t.sent.moving ? Math.min(CHASE_LEAD_MS, (d / m.speed) * 1000) : 0;
  let aim = along(t.sent, w.now + lead);
  if (!walkable(w, aim) || segmentBlocked(t, aim, w.zone.obstacles, 0)) aim = { x: t.x, y: t.y };
  // A target across the line: as near to it as this zone's ground goes.
  const across = !insideZone(aim, w.zone);
  if (across) aim = clampToZone(aim, w.zone);
  const goal = across ? aim : meleeSpot(w, m, aim, distance(m, aim));
  if (!m.route && distance(m, goal) < 1) {
    // Already at its place, waiting its turn on an outer ring: look for a free one later.
    m.repathAt = w.now + REPATH_DELAY;
    return;
  }
  const route = planRoute(w, { x: m.x, y: m.y }, walkable(w, goal) ? goal : aim);
  if (route) {
    startRoute(w, m, route);
    m.chaseCourse = t.sent;
    m.chaseLead = lead;
  } else m.repathAt = w.now + REPATH_DELAY;
}

/** Rings of places around a target beyond the melee ring, where attackers wait their turn. */
const WAITING_RINGS = 3;

/**
 * Where `m` stands to fight `t`, `d` away: a place of its own around the target. The places
 * lie on rings a body's width apart, each with as many places as bodies fit round it; only
 * the first ring, a little inside melee range, is close enough to swing from, so attackers
 * beyond its places wait on the rings outside and step in when a place frees. The nearest
 * free place first: the mob's own side of the target, then round it, then the next ring.
 */
function meleeSpot(w: World, m: Mob, t: Vec2, d: number): Vec2 {
  const range = w.rules.meleeRange;
  const body = 2 * ENTITY_RADIUS;
  const stand = Math.min(range * 0.8, d);
  const near = Math.atan2(m.y - t.y, m.x - t.x);
  const taken: Vec2[] = [];
  const g = w.mobGrid;
  const r = stand + (WAITING_RINGS + 1) * body;
  for (let cy = g.fromY(t.y - r); cy <= g.toY(t.y + r); cy++) {
    for (let cx = g.fromX(t.x - r); cx <= g.toX(t.x + r); cx++) {
      for (const o of g.cells[cy * g.cols + cx]!) {
        if (o === m || !o.alive || o.state !== 'chase' || o.targetId !== m.targetId) continue;
        taken.push(o.route ? o.route.waypoints[o.route.waypoints.length - 1]! : o);
      }
    }
  }
  for (let ring = 0; ring <= WAITING_RINGS; ring++) {
    const radius = stand + ring * body;
    const places = Math.max(1, Math.floor((2 * Math.PI * radius) / body));
    const step = (2 * Math.PI) / places;
    // Neighbouring places are a chord apart; a little less counts as the same place.
    const apart = 0.9 * Math.min(body, 2 * radius * Math.sin(step / 2));
    // Nearest first: 0, +1, -1, +2, -2, ... places away from the mob's own side.
    for (let k = 0; k < places; k++) {
      const a = near + step * (k % 2 === 0 ? k / 2 : -(k + 1) / 2);
      const spot = { x: t.x + Math.cos(a) * radius, y: t.y + Math.sin(a) * radius };
      if (taken.every((o) => distance(o, spot) >= apart) && walkable(w, spot)) return spot;
    }
  }
  return { x: t.x + Math.cos(near) * stand, y: t.y + Math.sin(near) * stand };
}

/** One step of AI and walking for a living mob in an active cell. */
function thinkMob(w: World, m: Mob): void {
  const arrived = advanceMob(w, m);
  switch (m.state) {
    case 'idle':
    case 'wander': {
      if (arrived && m.state === 'wander') {
        m.state = 'idle';
        pause(w, m, w.rng);
      }
      const target = findAggroTarget(w, m);
      if (target) engage(w, m, target);
      else if (m.state === 'idle' && w.now >= m.nextWanderAt) wander(w, m, w.rng);
      break;
    }
    case 'chase':
      chase(w, m);
      break;
    case 'return':
      if (!m.route) {
        m.state = 'idle';
        pause(w, m, w.rng);
      }
      break;
    case 'dead':
      break;
  }
}

/** Runs AI for the mobs in active cells only. */
export function simulateMobs(w: World): void {
  const batch: Mob[] = [];
  for (const cell of w.activeCells) {
    const list = w.mobGrid.cells[cell]!;
    for (let i = 0; i < list.length; i++) {
      const m = list[i]!;
      if (m.alive) batch.push(m);
    }
  }
  // Collected first: a mob walking into another active cell must not think twice.
  for (const m of batch) if (m.alive) thinkMob(w, m);
  w.stats.simulatedMobs = batch.length;
}

export function killMob(w: World, m: Mob): void {
  advanceMob(w, m);
  m.route = null;
  m.alive = false;
  m.state = 'dead';
  m.targetId = 0;
  m.corpseUntil = w.now + w.rules.corpseTime;
  m.respawnAt = w.now + m.template.respawnTime;
  w.deadMobs.add(m);
}

/** Corpses decay and mobs come back; these timers run even where no player is near. */
export function updateDeadMobs(w: World): void {
  for (const m of w.deadMobs) {
    if (m.cell >= 0 && w.now >= m.corpseUntil) {
      unplaceMob(w, m, 'corpse');
    }
    if (m.cell < 0 && w.now >= m.respawnAt) {
      w.deadMobs.delete(m);
      m.x = m.home.x;
      m.y = m.home.y;
      m.facing = 0;
      m.level = randomInt(w.rng, m.template.minLevel, m.template.maxLevel);
      m.health = m.maxHealth;
      m.alive = true;
      m.state = 'idle';
      m.nextSwingAt = 0;
      pause(w, m, w.rng);
      placeMob(w, m);
    }
  }
}
