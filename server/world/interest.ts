/**
 * Interest management: who sees what. A player sees an entity once it comes within
 * interestRadius and stops seeing it only beyond interestRadius × interestMargin, so an
 * entity pacing on the border does not flap between spawn and despawn.
 *
 * Cost per step: a player's view is recomputed when it moved, joined or respawned, and
 * otherwise once every interestRefreshTicks steps (staggered by id). A recompute checks the
 * entities it sees (leaving) and the grid cells within the radius (entering). Player pairs
 * are updated both ways at once, so a player walking up to a standing one is seen at once
 * by both; a mob walking into a standing player's view shows up at that player's next
 * staggered refresh.
 */
import { remainingRoute } from './mobs.js';
import type { Entity, Mob, Player } from './types.js';
import { emit, spawnMessage, toPlayer, type World } from './world.js';

export function updateInterest(w: World): void {
  const every = w.rules.interestRefreshTicks;
  const phase = w.tick % every;
  // Half the hysteresis band: walking less than this since the last refresh cannot carry
  // anything across both borders, so the staggered refresh is soon enough.
  const drift = (w.rules.interestRadius * (w.rules.interestMargin - 1)) / 2;
  const drift2 = drift * drift;
  let updates = 0;
  for (const p of w.players.values()) {
    const dx = p.x - p.viewX;
    const dy = p.y - p.viewY;
    if (p.id % every === phase || dx * dx + dy * dy > drift2 || w.viewDirty.has(p)) {
      refreshView(w, p);
      updates++;
    }
  }
  w.viewDirty.clear();
  w.stats.interestUpdates = updates;
}

function see(w: World, o: Player, e: Entity): void {
  o.visible.set(e.id, e);
  e.observers.add(o.id);
  e.observerList = null;
  emit(w, { type: 'spawn', observerId: o.id, msg: spawnMessage(e) });
  if (e.kind === 'mob') sendRouteTo(w, o, e);
}

function unsee(w: World, o: Player, e: Entity): void {
  o.visible.delete(e.id);
  e.observers.delete(o.id);
  e.observerList = null;
  emit(w, {
    type: 'despawn',
    observerId: o.id,
    msg: { packet: 'EntityDespawn', data: { id: e.id, reason: 'outOfRange' } },
  });
}

/** A mob that comes into view mid-walk: the rest of its walk, starting now from where it is. */
function sendRouteTo(w: World, o: Player, m: Mob): void {
  if (!m.route || !m.alive) return;
  const waypoints = remainingRoute(m.route, w.now);
  if (waypoints.length === 0) return;
  toPlayer(w, o.id, {
    packet: 'MobPath',
    data: { id: m.id, startTime: w.now, speed: m.route.speed, waypoints },
  });
}

export function refreshView(w: World, p: Player): void {
  const r = w.rules.interestRadius;
  const enter2 = r * r;
  const leave = r * w.rules.interestMargin;
  const leave2 = leave * leave;
  const px = p.x;
  const py = p.y;
  p.viewX = px;
  p.viewY = py;

  for (const e of p.visible.values()) {
    const dx = e.x - px;
    const dy = e.y - py;
    if (dx * dx + dy * dy > leave2) {
      unsee(w, p, e);
      if (e.kind === 'player' && e.visible.has(p.id)) unsee(w, e, p);
    }
  }

  const pg = w.playerGrid;
  const x0 = pg.cellX(px - r);
  const x1 = pg.cellX(px + r);
  const y0 = pg.cellY(py - r);
  const y1 = pg.cellY(py + r);
  const mobCells = w.mobGrid.cells;
  for (let cy = y0; cy <= y1; cy++) {
    for (let cx = x0; cx <= x1; cx++) {
      const cell = cy * pg.cols + cx;
      const players = pg.cells[cell]!;
      for (let i = 0; i < players.length; i++) {
        const q = players[i]!;
        const dx = q.x - px;
        const dy = q.y - py;
        if (dx * dx + dy * dy <= enter2 && q !== p && !p.visible.has(q.id)) {
          see(w, p, q);
          if (!q.visible.has(p.id)) see(w, q, p);
        }
      }
      const mobs = mobCells[cell]!;
      for (let i = 0; i < mobs.length; i++) {
        const m = mobs[i]!;
        const dx = m.x - px;
        const dy = m.y - py;
        if (dx * dx + dy * dy <= enter2 && !p.visible.has(m.id)) see(w, p, m);
      }
    }
  }
}

/** An entity appeared in place (a mob respawned): every player within range sees it now. */
export function showToPlayersNear(w: World, e: Entity): void {
  const r = w.rules.interestRadius;
  const r2 = r * r;
  const g = w.playerGrid;
  for (let cy = g.cellY(e.y - r); cy <= g.cellY(e.y + r); cy++) {
    for (let cx = g.cellX(e.x - r); cx <= g.cellX(e.x + r); cx++) {
      for (const p of g.cells[cy * g.cols + cx]!) {
        const dx = p.x - e.x;
        const dy = p.y - e.y;
        if (dx * dx + dy * dy <= r2 && p !== e && !p.visible.has(e.id)) see(w, p, e);
      }
    }
  }
}
