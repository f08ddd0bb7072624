/**
 * Ghosts: a neighbour zone's entities in the border strip, kept here so this zone's players
 * see across the line. Each tick the neighbour's host sends its strip whole (`stripStates`
 * there, a `strip` input here); `applyStrip` brings the ghosts up to it with the same events
 * the world's own entities raise (seen, motion, path, health, died, respawned, removed), so
 * observers get them in their ordinary replication frames. Ghosts live in their own grid
 * (nothing here simulates them; a ghost player wakes the mobs near it, but they turn on it
 * only when it hits them) and in no player or mob table. A spell or a mob's swing may target
 * one: it is sent to the ghost's own zone with the next strip and applied there (combat.ts:
 * hitAcross, applyBorderNews).
 */
import { CellSet } from './cell-set.js';
import { grown, pointInArea, stripDepth } from './border.js';
import { IdMap, IdSet } from './id-table.js';
import { newTimeline } from './timeline.js';
import type { Entity, GhostState, Mob, MobRoute, Player, ZoneData } from './types.js';
import { activate, crossed, emit, removeFromCell, showInCell, type World } from './world.js';

/** This zone's entities that `neighbour`'s players may see: those within the strip depth of it. */
export function stripStates(w: World, neighbour: ZoneData): GhostState[] {
  const area = grown(neighbour, stripDepth(w.rules));
  const out: GhostState[] = [];
  const g = w.playerGrid;
  const x0 = g.fromX(area.x);
  const x1 = g.toX(area.x + area.width);
  const y0 = g.fromY(area.y);
  const y1 = g.toY(area.y + area.height);
  for (let cy = y0; cy <= y1; cy++) {
    for (let cx = x0; cx <= x1; cx++) {
      const cell = cy * g.cols + cx;
      for (const p of g.cells[cell]!) if (pointInArea(p, area)) out.push(ghostState(p));
      for (const m of w.mobGrid.cells[cell]!) if (pointInArea(m, area)) out.push(ghostState(m));
    }
  }
  return out;
}

export function ghostState(e: Entity): GhostState {
  return {
    id: e.id,
    kind: e.kind,
    template: e.kind === 'mob' ? e.template.id : 0,
    name: e.name,
    level: e.level,
    appearance: e.appearance,
    health: e.health,
    maxHealth: e.maxHealth,
    alive: e.alive,
    speed: e.speed,
    x: e.x,
    y: e.y,
    facing: e.facing,
    sent: e.kind === 'player' ? { ...e.sent } : null,
    route: e.kind === 'mob' && e.route ? e.route : null,
  };
}

/** Brings the ghosts from zone `from` up to its strip; those no longer in it go. */
export function applyStrip(w: World, from: string, states: readonly GhostState[]): void {
  const present = new Set<number>();
  for (const s of states) {
    // An entity of this zone is never its own ghost (a hand-off in flight shows it once).
    if (w.players.has(s.id) || w.mobs.has(s.id)) continue;
    present.add(s.id);
    const g = w.ghosts.get(s.id);
    if (g && g.from === from) g.heldUntil = undefined;
    if (g && g.entity.kind === 'mob' && !g.entity.alive && s.alive) {
      // A mob risen again at its home: its corpse went, a fresh mob comes (as on its own host).
      removeGhost(w, s.id, 'corpse');
      addGhost(w, from, s);
    } else if (!g) addGhost(w, from, s);
    else updateGhost(w, g.entity, s);
  }
  for (const [id, g] of w.ghosts) {
    if (g.from !== from || present.has(id)) continue;
    // A player just handed on stays until its new zone's strip shows it (or its wait is up).
    if (g.heldUntil !== undefined && g.heldUntil > w.now) continue;
    removeGhost(w, id);
  }
}

/** Takes a ghost out: those who saw it get a despawn (a corpse decays, anything else leaves). */
export function removeGhost(w: World, id: number, reason?: 'left' | 'corpse'): void {
  const g = w.ghosts.get(id);
  if (!g) return;
  w.ghosts.delete(id);
  removeFromCell(w, g.entity, reason ?? (g.entity.alive ? 'left' : 'corpse'));
  if (g.entity.kind === 'player') activate(w, g.entity.cell, -1);
  w.ghostGrid.remove(g.entity);
}

function addGhost(w: World, from: string, s: GhostState): void {
  const template = s.kind === 'mob' ? w.data.templates.get(s.template) : undefined;
  // A mob whose template this host does not know cannot be drawn: leave it out.
  if (s.kind === 'mob' && !template) return;
  const e = s.kind === 'mob' ? ghostMob(w, s, template!) : ghostPlayer(w, s);
  w.ghosts.set(e.id, { entity: e, from });
  w.ghostGrid.insert(e);
  // A player across the line wakes the mobs near it here, as one of ours would.
  if (e.kind === 'player') activate(w, e.cell, 1);
  showInCell(w, e);
}

function updateGhost(w: World, e: Entity, s: GhostState): void {
  const wasAlive = e.alive;
  const healthChanged = e.health !== s.health || e.maxHealth !== s.maxHealth;
  e.x = s.x;
  e.y = s.y;
  e.facing = s.facing;
  e.level = s.level;
  e.speed = s.speed;
  e.health = s.health;
  e.maxHealth = s.maxHealth;
  e.alive = s.alive;
  const old = e.cell;
  if (w.ghostGrid.update(e)) {
    crossed(w, e, old);
    if (e.kind === 'player') {
      activate(w, old, -1);
      activate(w, e.cell, 1);
    }
  }
  if (wasAlive && !s.alive) emit(w, { type: 'died', entity: e, killerId: 0 });
  else if (!wasAlive && s.alive && e.kind === 'player') emit(w, { type: 'respawned', entity: e });
  else if (healthChanged) emit(w, { type: 'health', entity: e });
  if (e.kind === 'player' && s.sent && !sameMotion(e.sent, s.sent)) {
    e.sent = { ...s.sent };
    emit(w, { type: 'motion', entity: e, jump: false });
  } else if (e.kind === 'mob' && !sameRoute(e.route, s.route)) {
    e.route = s.route;
    emit(w, { type: 'path', entity: e });
  }
}

/** Whether two motion states are the same (observers reckon the same from either). */
export function sameMotion(a: Player['sent'], b: Player['sent']): boolean {
  return (
    a.t === b.t &&
    a.x === b.x &&
    a.y === b.y &&
    a.moving === b.moving &&
    a.angle === b.angle &&
    a.speed === b.speed
  );
}

function sameRoute(a: MobRoute | null, b: MobRoute | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.startTime !== b.startTime || a.speed !== b.speed || a.waypoints.length !== b.waypoints.length)
    return false;
  if (a.start.x !== b.start.x || a.start.y !== b.start.y) return false;
  return a.waypoints.every((p, i) => p.x === b.waypoints[i]!.x && p.y === b.waypoints[i]!.y);
}

function base(s: GhostState) {
  return {
    id: s.id,
    name: s.name,
    level: s.level,
    x: s.x,
    y: s.y,
    facing: s.facing,
    speed: s.speed,
    health: s.health,
    maxHealth: s.maxHealth,
    alive: s.alive,
    appearance: s.appearance,
    observers: new IdSet(),
    observerList: null,
    cell: -1,
    slot: -1,
  };
}

function ghostMob(w: World, s: GhostState, template: Mob['template']): Mob {
  return {
    ...base(s),
    kind: 'mob',
    template,
    home: { x: s.x, y: s.y },
    state: s.alive ? 'idle' : 'dead',
    route: s.route,
    targetId: 0,
    nextWanderAt: Infinity,
    nextSwingAt: Infinity,
    repathAt: Infinity,
    chaseCourse: null,
    chaseLead: 0,
    corpseUntil: 0,
    respawnAt: 0,
  };
}

function ghostPlayer(w: World, s: GhostState): Player {
  const sent = s.sent ?? { x: s.x, y: s.y, t: w.now, moving: false, angle: s.facing, speed: 0 };
  return {
    ...base(s),
    kind: 'player',
    sessionId: 0,
    characterId: s.id,
    mana: 0,
    maxMana: 0,
    kills: 0,
    experience: 0,
    spells: [],
    visible: new IdMap(),
    viewCells: new CellSet(0),
    viewX: s.x,
    viewY: s.y,
    lastSeq: 0,
    moveEpoch: 0,
    lastMoveAt: w.now,
    lastClientTime: undefined,
    timeBank: 0,
    moving: sent.moving,
    moveSpeed: sent.speed,
    sent: { ...sent },
    clockOffset: Infinity,
    inputAt: sent.t,
    sentInputAt: sent.t,
    lastInput: { x: s.x, y: s.y },
    timeline: newTimeline(w.now),
    cast: null,
    cooldowns: new Map(),
    logoutAt: null,
    lastCombatAt: -Infinity,
    respawnAt: null,
    nextManaRegenAt: Infinity,
    chatTokens: 0,
    chatRefilledAt: w.now,
  };
}
