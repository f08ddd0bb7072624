import { describe, expect, it } from 'vitest';
import { distance, positionAlongPath } from '../../shared/game/movement.js';
import {
  INSTANT,
  join,
  mobAt,
  mobId,
  move,
  player,
  received,
  runUntil,
  sent,
  spell,
  tick,
  world,
} from './builders.js';

describe('mob wander', () => {
  it('walks a route of several waypoints announced by one MobPath, with no per-tick moves', () => {
    const w = world({ mobs: [mobAt(200, 600)], rules: { wanderPauseMin: 100, wanderPauseMax: 100 } });
    const p = join(w, player({ x: 100, y: 800 }));
    const m = w.mobs.get(mobId(0))!;
    const events = runUntil(w, 150);
    const paths = received(events, p.id, 'MobPath');
    expect(paths).toHaveLength(1);
    const path = paths[0]!;
    expect(path.id).toBe(m.id);
    expect(path.waypoints.length).toBeGreaterThan(1);
    for (const wp of path.waypoints) expect(distance(wp, m.home)).toBeLessThanOrEqual(60 + 0.1);
    const later = runUntil(w, path.startTime + 300);
    expect(sent(later, 'MobPath')).toEqual([]);
    expect(sent(later, 'EntityMove')).toEqual([]);
    const expected = positionAlongPath(m.home, path.waypoints, path.speed, w.now - path.startTime);
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
    const events = [...tick(w, [move(p, 245, 600, 1)], 1000), ...tick(w, [], 1050)];
    expect(m.state).toBe('chase');
    expect(m.targetId).toBe(p.id);
    const path = received(events, p.id, 'MobPath')[0]!;
    expect(distance(path.waypoints.at(-1)!, p)).toBeLessThanOrEqual(22);
  });

  it('re-paths only when the target moved meaningfully away', () => {
    const w = world({ mobs: [mobAt(300, 600)], rules: { meleeRange: 22 } });
    const p = join(w, player({ x: 250, y: 600 }));
    const m = w.mobs.get(mobId(0))!;
    runUntil(w, 100);
    expect(m.state).toBe('chase');
    // a few units of shuffling: no new path
    let ev = tick(w, [move(p, 248, 602, 1)], 150);
    expect(sent(ev, 'MobPath')).toEqual([]);
    runUntil(w, 1000);
    // walks off 40 units: one new path
    ev = [...tick(w, [move(p, 210, 600, 2)], 1050), ...runUntil(w, 1200)];
    expect(sent(ev, 'MobPath').length).toBeGreaterThanOrEqual(1);
  });

  it('swings in melee range on its swing timer: CombatEvent spell 0 and HealthUpdate to the player', () => {
    const w = world({ mobs: [mobAt(300, 600)] });
    const p = join(w, player({ x: 285, y: 600 }));
    // The first swing landed in the join step (t = 0); then one per second.
    expect(p.health).toBe(95);
    const events = runUntil(w, 2100);
    const swings = received(events, p.id, 'CombatEvent');
    expect(swings.length).toBe(2);
    expect(swings[0]).toEqual({
      sourceId: mobId(0),
      targetId: p.id,
      spellId: 0,
      kind: 'damage',
      amount: 5,
      crit: false,
    });
    expect(received(events, p.id, 'HealthUpdate').map((h) => h.health)).toEqual([90, 85]);
    expect(p.health).toBe(85);
  });

  it('leashes home at full health when pulled too far from its spawn point', () => {
    const w = world({ mobs: [mobAt(300, 600)], rules: { leashDistance: 150 }, zone: { obstacles: [] } });
    const p = join(w, player({ x: 250, y: 600 }));
    const m = w.mobs.get(mobId(0))!;
    m.health = 20;
    let t = 0;
    let x = 250;
    let leashed: ReturnType<typeof tick> = [];
    while (m.state !== 'return' && t < 10_000) {
      t += 50;
      x = Math.min(900, x + 5);
      leashed = tick(w, [move(p, x, 600, t)], t);
    }
    expect(m.state).toBe('return');
    expect(m.targetId).toBe(0);
    expect(m.health).toBe(50);
    const home = sent(leashed, 'MobPath').at(-1)!;
    expect(home.waypoints.at(-1)).toEqual(
      expect.objectContaining({ x: expect.closeTo(300, 1), y: expect.closeTo(600, 1) }),
    );
    expect(sent(leashed, 'HealthUpdate')).toContainEqual({ id: m.id, health: 50, maxHealth: 50 });
    runUntil(w, t + 3000);
    expect(m.state).toBe('idle');
    expect(distance(m, m.home)).toBeLessThan(1);
  });

  it('drops aggro on a dead player and walks home', () => {
    const w = world({ mobs: [mobAt(300, 600)] });
    const p = join(w, player({ x: 285, y: 600, health: 8 }));
    const m = w.mobs.get(mobId(0))!;
    const events = runUntil(w, 1100);
    expect(received(events, p.id, 'Death')).toEqual([{ id: p.id, killerId: m.id }]);
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
    expect(received(kill, p.id, 'Death')).toEqual([{ id: m.id, killerId: p.id }]);
    expect(received(kill, p.id, 'HealthUpdate')).toEqual([{ id: m.id, health: 0, maxHealth: 50 }]);
    expect(received(kill, p.id, 'PlayerStats').at(-1)).toMatchObject({ kills: 1 });
    expect(p.kills).toBe(1);
    expect(m.alive).toBe(false);

    const decay = runUntil(w, 600);
    expect(received(decay, p.id, 'EntityDespawn')).toEqual([{ id: m.id, reason: 'corpse' }]);
    expect(p.visible.has(m.id)).toBe(false);

    const back = runUntil(w, 2100);
    const spawns = received(back, p.id, 'EntitySpawn');
    expect(spawns).toHaveLength(1);
    expect(spawns[0]).toMatchObject({ id: m.id, alive: true, health: 50, x: 400, y: 700 });
    expect(m.alive).toBe(true);
  });
});
