import { describe, expect, it } from 'vitest';
import { joinPlayer, leavePlayer } from '../../server/world/index.js';
import { join, mobAt, mobId, move, player, received, runUntil, tick, world } from './builders.js';

describe('interest', () => {
  it('spawns nearby players for each other with full spawn fields, and not far ones', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300, name: 'Alda' }));
    const c = join(w, player({ x: 900, y: 900 }));
    const playerId = join(w, player({ x: 200, y: 300, name: 'Brin' })).id;
    expect(a.visible.has(playerId)).toBe(true);
    expect(w.players.get(playerId)!.visible.has(a.id)).toBe(true);
    expect(c.visible.size).toBe(0);
    expect(w.players.get(playerId)!.observers).toEqual(new Set([a.id]));
  });

  it('emits EntitySpawn with the entity state to a new observer', () => {
    const w = world({ mobs: [mobAt(300, 300)] });
    const { playerId } = joinPlayer(w, 7, player({ x: 100, y: 300 }));
    const events = tick(w, [], 50);
    const m = w.mobs.get(mobId(0))!;
    expect(received(events, playerId, 'EntitySpawn')).toEqual([
      {
        id: m.id,
        kind: 'mob',
        template: 1,
        name: 'Wolf',
        level: m.level,
        health: 50,
        maxHealth: 50,
        x: 300,
        y: 300,
        facing: 0,
        speed: 100,
        appearance: 1,
        alive: true,
      },
    ]);
    expect(m.level).toBeGreaterThanOrEqual(2);
    expect(m.level).toBeLessThanOrEqual(4);
  });

  it('enters at the radius and leaves only beyond radius × margin (no flapping at the border)', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 100, y: 500 }));
    const b = join(w, player({ x: 390, y: 500 }));
    expect(a.visible.has(b.id)).toBe(false);
    // b walks in to 245 (inside 250): both see each other
    let t = 0;
    let x = 390;
    const step = (to: number): ReturnType<typeof tick> => {
      t += 1000;
      x = to;
      // the move, then a few ticks so every staggered view refresh has run
      return [...tick(w, [move(b, to, 500, t)], t), ...runUntil(w, t + 200)];
    };
    let ev = step(345);
    expect(received(ev, a.id, 'EntitySpawn').map((s) => s.id)).toEqual([b.id]);
    expect(received(ev, b.id, 'EntitySpawn').map((s) => s.id)).toEqual([a.id]);
    // pacing between 345 and 380 (distances 245..280, all under 287.5): no despawn, no spawn
    const spam: unknown[] = [];
    for (const to of [380, 350, 385, 346, 380, 360, 386]) {
      ev = step(to);
      spam.push(...received(ev, a.id, 'EntitySpawn'), ...received(ev, a.id, 'EntityDespawn'));
    }
    expect(spam).toEqual([]);
    expect(x).toBe(386);
    // beyond 287.5: despawn outOfRange for both
    ev = step(395);
    expect(received(ev, a.id, 'EntityDespawn')).toEqual([{ id: b.id, reason: 'outOfRange' }]);
    expect(received(ev, b.id, 'EntityDespawn')).toEqual([{ id: a.id, reason: 'outOfRange' }]);
    // back to 360 (distance 260): still outside the enter radius, so nothing
    ev = step(360);
    expect(received(ev, a.id, 'EntitySpawn')).toEqual([]);
  });

  it('keeps observers and visible sets consistent both ways', () => {
    const w = world({ mobs: [mobAt(200, 200), mobAt(800, 800)] });
    const a = join(w, player({ x: 100, y: 200 }));
    const m = w.mobs.get(mobId(0))!;
    expect(a.visible.has(m.id)).toBe(true);
    expect(m.observers.has(a.id)).toBe(true);
    expect(w.mobs.get(mobId(1))!.observers.size).toBe(0);
  });

  it('a player that leaves the world is despawned with reason left for its observers', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300 }));
    const b = join(w, player({ x: 150, y: 300 }));
    const events = leavePlayer(w, b.id, 'disconnected');
    expect(received(events, a.id, 'EntityDespawn')).toEqual([{ id: b.id, reason: 'left' }]);
    expect(events.map((e) => e.type)).toEqual(['save', 'despawn', 'leftWorld']);
    expect(a.visible.size).toBe(0);
    expect(a.observers.size).toBe(0);
  });

  it('a standing player notices a mob that walks into view within a few ticks', () => {
    const w = world({ mobs: [mobAt(420, 700)], rules: { interestRefreshTicks: 4 } });
    const p = join(w, player({ x: 100, y: 700 }));
    const m = w.mobs.get(mobId(0))!;
    expect(p.visible.has(m.id)).toBe(false);
    m.x = 330; // as if it walked there
    w.mobGrid.update(m);
    runUntil(w, w.now + 200);
    expect(p.visible.has(m.id)).toBe(true);
  });
});

describe('cell activation', () => {
  it('does no per-mob work for 10,000 mobs with no player in the zone', () => {
    const mobs = [];
    for (let i = 0; i < 10_000; i++) mobs.push(mobAt(20 + (i % 100) * 9.5, 20 + Math.floor(i / 100) * 9.5));
    const w = world({
      mobs,
      zone: { obstacles: [], playerSpawn: { x: 990, y: 990 } },
      rules: { wanderPauseMin: 0, wanderPauseMax: 10 },
    });
    expect(w.mobs.size).toBe(10_000);
    let events = 0;
    for (let t = 50; t <= 2000; t += 50) {
      events += tick(w, [], t).length;
      expect(w.stats.simulatedMobs).toBe(0);
    }
    expect(events).toBe(0);
    expect([...w.mobs.values()].every((m) => m.route === null && m.state === 'idle')).toBe(true);
  });

  it('simulates only the mobs near a player', () => {
    const mobs = [mobAt(150, 150), mobAt(900, 900)];
    const w = world({ mobs, zone: { obstacles: [] }, rules: { wanderPauseMin: 0, wanderPauseMax: 10 } });
    join(w, player({ x: 100, y: 100 }));
    runUntil(w, 500);
    expect(w.stats.simulatedMobs).toBe(1);
    expect(w.mobs.get(mobId(0))!.state).not.toBe('idle');
    expect(w.mobs.get(mobId(1))!.state).toBe('idle');
  });
});
