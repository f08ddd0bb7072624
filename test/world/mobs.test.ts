import { describe, expect, it } from 'vitest';
import { distance, positionAlongPath } from '../../shared/game/movement.js';
import { CLIENT_HEARTBEAT_MS } from '../../shared/game/motion.js';
import type { MobRoute, WorldEvent } from '../../server/world/index.js';
import {
  INSTANT,
  join,
  mobAt,
  mobId,
  move,
  ofType,
  player,
  received,
  runEach,
  runUntil,
  seenBy,
  spell,
  template,
  tick,
  walker,
  world,
} from './builders.js';

/** Copies of the routes the `path` events set, in order (the events carry the live mob). */
function routes(events: WorldEvent[], id = mobId(0)): (MobRoute | null)[] {
  return ofType(events, 'path')
    .filter((e) => e.entity.id === id)
    .map((e) => (e.entity.route ? structuredClone(e.entity.route) : null));
}

describe('mob wander', () => {
  it('walks a route of several waypoints announced by one path event, with no per-step events', () => {
    const w = world({ mobs: [mobAt(200, 600)], rules: { wanderPauseMin: 100, wanderPauseMax: 100 } });
    const p = join(w, player({ x: 100, y: 800 }));
    const m = w.mobs.get(mobId(0))!;
    expect(p.visible.has(m.id)).toBe(true);
    const paths = routes(runUntil(w, 150));
    expect(paths).toHaveLength(1);
    const route = paths[0]!;
    expect(route.start).toEqual(m.home);
    expect(route.waypoints.length).toBeGreaterThan(1);
    for (const wp of route.waypoints) expect(distance(wp, m.home)).toBeLessThanOrEqual(60 + 0.1);
    const later = runUntil(w, route.startTime + 300);
    expect(later).toEqual([]);
    const expected = positionAlongPath(m.home, route.waypoints, route.speed, w.now - route.startTime);
    expect(m.x).toBeCloseTo(expected.x, 5);
    expect(m.y).toBeCloseTo(expected.y, 5);
  });
});

describe('mob combat', () => {
  it('aggroes a living player within its aggro radius and chases', () => {
    const w = world({ mobs: [mobAt(300, 600)] });
    const p = join(w, player({ x: 200, y: 600 }));
    const m = w.mobs.get(mobId(0))!;
    expect(m.state).toBe('idle');
    const events = [...tick(w, [move(p, 245, 600, { t: 1000 })], 1000), ...tick(w, [], 1050)];
    expect(m.state).toBe('chase');
    expect(m.targetId).toBe(p.id);
    const route = routes(events)[0]!;
    expect(distance(route.waypoints.at(-1)!, p)).toBeLessThanOrEqual(22);
  });

  it('re-paths only when the target moved meaningfully away', () => {
    const w = world({ mobs: [mobAt(300, 600)], rules: { meleeRange: 22 } });
    const p = join(w, player({ x: 250, y: 600 }));
    const m = w.mobs.get(mobId(0))!;
    runUntil(w, 100);
    expect(m.state).toBe('chase');
    // a few units of shuffling: no new path
    let ev = tick(w, [move(p, 248, 602, { t: 150 })], 150);
    expect(routes(ev)).toEqual([]);
    runUntil(w, 1000);
    // walks off 40 units: a new path
    ev = [...tick(w, [move(p, 210, 600, { t: 1050 })], 1050), ...runUntil(w, 1200)];
    expect(routes(ev).length).toBeGreaterThanOrEqual(1);
  });

  it('aims where a walking target will be and keeps that route while the target keeps its course', () => {
    const w = world({
      mobs: [mobAt(300, 500)],
      templates: [template({ speed: 80 })],
      rules: { leashDistance: 2000 },
      zone: { obstacles: [] },
    });
    const p = join(w, player({ x: 250, y: 500 }));
    const m = w.mobs.get(mobId(0))!;
    runUntil(w, 100);
    expect(m.state).toBe('chase');
    // The player walks off along +y at its full speed (faster than the mob) for 1.5 s, with a
    // client's heartbeat every CLIENT_HEARTBEAT_MS, then stops.
    const walk = walker(p, Math.PI / 2, 100);
    const paths: { t: number; route: MobRoute | null }[] = [];
    const events: WorldEvent[] = [];
    for (let t = 150; t <= 4000; t += 50) {
      const input = t <= 1600 && (t - 100) % CLIENT_HEARTBEAT_MS === 0 ? [walk.at(t, t < 1600)] : [];
      const ev = tick(w, input, t);
      for (const route of routes(ev)) paths.push({ t, route });
      events.push(...ev);
    }
    const walking = paths.filter((x) => x.t <= 1600);
    // One route aimed ahead along the walk, kept while the player keeps its course (the old
    // chase re-planned every 24 units the player walked: 6 or more routes in 1.5 s).
    expect(walking.length).toBeLessThanOrEqual(2);
    // Aimed ahead of where the player was when the route was planned (y 536 at t 400).
    expect(walking[0]!.route!.waypoints.at(-1)!.y).toBeGreaterThan(560);
    // Then it catches up with the stopped player and swings.
    expect(distance(m, p)).toBeLessThanOrEqual(22);
    expect(received(events, p.id, 'CombatEvent').length).toBeGreaterThanOrEqual(1);
  });

  it('stops where it stands, with a one-point path, when its target comes within reach before its route ends', () => {
    const w = world({ mobs: [mobAt(300, 600)], templates: [template({ speed: 10 })] });
    const p = join(w, player({ x: 250, y: 600 }));
    const m = w.mobs.get(mobId(0))!;
    expect(m.state).toBe('chase');
    expect(m.route!.waypoints.at(-1)!.x).toBeLessThan(270);
    runUntil(w, 950);
    // The player steps round to the mob's far side: in reach, 37 units from where its route ends.
    const ev = tick(w, [move(p, 300, 615, { t: 1000 })], 1000);
    const stop = routes(ev);
    expect(stop).toHaveLength(1);
    expect(stop[0]!.waypoints).toHaveLength(1);
    expect(distance(stop[0]!.waypoints[0]!, m)).toBeLessThan(0.1);
    expect(received(ev, p.id, 'CombatEvent')).toHaveLength(1);
  });

  it('swings in melee range on its swing timer: CombatEvent spell 0 to the player and a health event', () => {
    const w = world({ mobs: [mobAt(300, 600)] });
    const p = join(w, player({ x: 285, y: 600 }));
    // The first swing landed in the join step (t = 0); then one per second.
    expect(p.health).toBe(95);
    const swings: unknown[] = [];
    const healths: number[] = [];
    runEach(w, 2100, (events) => {
      swings.push(...received(events, p.id, 'CombatEvent'));
      for (const e of ofType(events, 'health')) if (e.entity === p) healths.push(p.health);
    });
    expect(swings.length).toBe(2);
    expect(swings[0]).toEqual({
      sourceId: mobId(0),
      targetId: p.id,
      spellId: 0,
      kind: 'damage',
      amount: 5,
      crit: false,
    });
    expect(healths).toEqual([90, 85]);
    expect(p.health).toBe(85);
  });

  it('leashes home at full health when pulled too far from its spawn point', () => {
    const w = world({ mobs: [mobAt(300, 600)], rules: { leashDistance: 150 }, zone: { obstacles: [] } });
    const p = join(w, player({ x: 250, y: 600 }));
    const m = w.mobs.get(mobId(0))!;
    m.health = 20;
    let t = 0;
    let x = 250;
    let leashed: WorldEvent[] = [];
    while (m.state !== 'return' && t < 10_000) {
      t += 50;
      x = Math.min(900, x + 5);
      leashed = tick(w, [move(p, x, 600, { t, moving: true, speed: 100 })], t);
    }
    expect(m.state).toBe('return');
    expect(m.targetId).toBe(0);
    expect(m.health).toBe(50);
    const home = routes(leashed).at(-1)!;
    expect(home.waypoints.at(-1)).toEqual(
      expect.objectContaining({ x: expect.closeTo(300, 1), y: expect.closeTo(600, 1) }),
    );
    expect(ofType(leashed, 'health').map((e) => e.entity)).toContain(m);
    runUntil(w, t + 3000);
    expect(m.state).toBe('idle');
    expect(distance(m, m.home)).toBeLessThan(1);
  });

  it('drops aggro on a dead player and walks home', () => {
    const w = world({ mobs: [mobAt(300, 600)] });
    const p = join(w, player({ x: 285, y: 600, health: 8 }));
    const m = w.mobs.get(mobId(0))!;
    const events = runUntil(w, 1100);
    expect(ofType(events, 'died')).toEqual([{ type: 'died', entity: p, killerId: m.id }]);
    expect(p.alive).toBe(false);
    expect(m.state).not.toBe('chase');
  });
});

describe('mob death, corpse and respawn', () => {
  const strong = [spell({ id: INSTANT, castTime: 0, projectileSpeed: 0, min: 100, max: 100, manaCost: 0 })];

  it('dies at 0 health, credits the killer, decays, and respawns at home', () => {
    const w = world({ mobs: [mobAt(400, 700)], spells: strong, rules: { corpseTime: 500 } });
    const p = join(w, player({ x: 250, y: 700 }));
    const m = w.mobs.get(mobId(0))!;
    const kill = tick(w, [{ type: 'cast', entityId: p.id, spellId: INSTANT, targetId: m.id }], 100);
    expect(ofType(kill, 'died')).toEqual([{ type: 'died', entity: m, killerId: p.id }]);
    expect(ofType(kill, 'health').map((e) => e.entity)).toEqual([m]);
    expect(m.health).toBe(0);
    expect(received(kill, p.id, 'PlayerStats').at(-1)).toMatchObject({ kills: 1 });
    expect(p.kills).toBe(1);
    expect(m.alive).toBe(false);
    // The corpse stays where the player sees it until it decays.
    expect(p.visible.has(m.id)).toBe(true);

    const cell = m.cell;
    const decay = runUntil(w, 600);
    expect(ofType(decay, 'removed')).toEqual([
      { type: 'removed', entity: m, cell, reason: 'corpse', observers: [p.id] },
    ]);
    expect(p.viewCells.has(cell)).toBe(true);
    expect(p.visible.has(m.id)).toBe(false);
    expect(m.observers.size).toBe(0);

    let back: { alive: boolean; health: number; x: number; y: number } | undefined;
    runEach(w, 2100, (events) => {
      if (seenBy(events, p.id).includes(m.id)) back = { alive: m.alive, health: m.health, x: m.x, y: m.y };
    });
    expect(back).toEqual({ alive: true, health: 50, x: 400, y: 700 });
    expect(p.visible.get(m.id)).toBe(m);
  });
});
