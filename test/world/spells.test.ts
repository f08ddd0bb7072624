import { describe, expect, it } from 'vitest';
import type { WorldEvent, WorldInput } from '../../server/world/index.js';
import {
  FIREBALL,
  HEAL,
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
  SLOW_CD,
  tick,
  unseenBy,
  world,
  cast,
} from './builders.js';

describe('casting', () => {
  it('cast -> SpellStart -> SpellGo -> CombatEvent and HealthUpdate, mana and stats', () => {
    // the mob stands out of aggro range (60) but inside spell range (200)
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    const m = w.mobs.get(mobId(0))!;
    const start = tick(w, [cast(p.id, FIREBALL, m.id)], 100);
    expect(received(start, p.id, 'SpellStart')).toEqual([
      { casterId: p.id, spellId: FIREBALL, targetId: m.id, castTime: 1000 },
    ]);
    expect(p.mana).toBe(100); // spent at completion
    const mid = runUntil(w, 1050);
    expect(received(mid, p.id, 'SpellGo')).toEqual([]);
    const go = tick(w, [], 1100);
    expect(received(go, p.id, 'SpellGo')).toEqual([
      { casterId: p.id, spellId: FIREBALL, targetId: m.id, travelTime: 1500 },
    ]);
    expect(received(go, p.id, 'PlayerStats')).toEqual([
      { mana: 90, maxMana: 100, level: 1, kills: 0, experience: 0, experienceNeeded: 1000 },
    ]);
    expect(m.health).toBe(50);
    const hit = runUntil(w, 2600);
    expect(received(hit, p.id, 'CombatEvent')).toEqual([
      { sourceId: p.id, targetId: m.id, spellId: FIREBALL, kind: 'damage', amount: 30, crit: false },
    ]);
    expect(ofType(hit, 'health').map((e) => e.entity)).toContain(m);
    expect(m.health).toBe(20);
    expect(m.state).toBe('chase'); // a hit mob turns on its attacker
  });

  it('rolls crits with the crit multiplier', () => {
    const w = world({ mobs: [mobAt(250, 700)], rules: { critChance: 1, critMultiplier: 1.5 } });
    const p = join(w, player({ x: 100, y: 700 }));
    const ev = tick(w, [cast(p.id, INSTANT, mobId(0))], 100);
    expect(received(ev, p.id, 'CombatEvent')[0]).toMatchObject({ amount: 15, crit: true });
  });

  it('an instant spell skips the cast bar and starts its cooldown', () => {
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    const ev = tick(w, [cast(p.id, INSTANT, mobId(0))], 100);
    expect(received(ev, p.id, 'SpellStart')).toEqual([]);
    expect(received(ev, p.id, 'SpellGo')).toEqual([
      { casterId: p.id, spellId: INSTANT, targetId: mobId(0), travelTime: 0 },
    ]);
    expect(received(ev, p.id, 'Cooldown')).toEqual([{ spellId: INSTANT, remaining: 3000 }]);
    expect(received(ev, p.id, 'CombatEvent')).toHaveLength(1);
    const again = tick(w, [cast(p.id, INSTANT, mobId(0))], 1000);
    expect(received(again, p.id, 'SpellFailed')).toEqual([
      { casterId: p.id, spellId: INSTANT, reason: 'cooldown' },
    ]);
    const later = tick(w, [cast(p.id, INSTANT, mobId(0))], 3100);
    expect(received(later, p.id, 'SpellGo')).toHaveLength(1);
  });

  it('a cooldown from a cast-time spell starts at completion', () => {
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    tick(w, [cast(p.id, SLOW_CD, mobId(0))], 100);
    const done = runUntil(w, 600);
    expect(received(done, p.id, 'Cooldown')).toEqual([{ spellId: SLOW_CD, remaining: 5000 }]);
  });

  it('moving interrupts the cast: SpellFailed interrupted to observers and caster', () => {
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    const q = join(w, player({ x: 100, y: 650 }));
    tick(w, [cast(p.id, FIREBALL, mobId(0))], 100);
    const ev = tick(w, [move(p, 104, 700, { t: 300 })], 300);
    const fail = { casterId: p.id, spellId: FIREBALL, reason: 'interrupted' };
    expect(received(ev, p.id, 'SpellFailed')).toEqual([fail]);
    expect(received(ev, q.id, 'SpellFailed')).toEqual([fail]);
    expect(received(runUntil(w, 2000), p.id, 'SpellGo')).toEqual([]);
    expect(p.mana).toBe(100);
  });

  it('turning on the spot does not interrupt the cast', () => {
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    tick(w, [cast(p.id, FIREBALL, mobId(0))], 100);
    tick(w, [move(p, 100, 700, { t: 300, facing: 1.5 })], 300);
    expect(received(runUntil(w, 1200), p.id, 'SpellGo')).toHaveLength(1);
  });

  it('CancelCast stops the cast with reason cancelled', () => {
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    tick(w, [cast(p.id, FIREBALL, mobId(0))], 100);
    const ev = tick(w, [{ type: 'cancelCast', entityId: p.id }], 300);
    expect(received(ev, p.id, 'SpellFailed')).toEqual([
      { casterId: p.id, spellId: FIREBALL, reason: 'cancelled' },
    ]);
  });

  it('refuses casts with a reason, to the caster only', () => {
    const w = world({ mobs: [mobAt(250, 700), mobAt(700, 700)], mana: 8 });
    const p = join(w, player({ x: 100, y: 700 }));
    const q = join(w, player({ x: 120, y: 700 }));
    const reasons = (input: WorldInput, now: number): string[] =>
      received(tick(w, [input], now), p.id, 'SpellFailed').map((f) => f.reason);
    expect(reasons(cast(p.id, 99, mobId(0)), 100)).toEqual(['unknownSpell']);
    expect(reasons(cast(p.id, FIREBALL, mobId(0)), 150)).toEqual(['noMana']);
    expect(reasons(cast(p.id, INSTANT, mobId(1)), 200)).toEqual(['outOfRange']);
    expect(reasons(cast(p.id, INSTANT, q.id), 250)).toEqual(['badTarget']); // no player-vs-player
    expect(reasons(cast(p.id, HEAL, mobId(0)), 300)).toEqual(['badTarget']);
    const ev = tick(w, [cast(p.id, 99, mobId(0))], 350);
    expect(received(ev, q.id, 'SpellFailed')).toEqual([]);
    p.alive = false;
    expect(reasons(cast(p.id, INSTANT, mobId(0)), 400)).toEqual(['dead']);
  });

  it('refuses a second cast while one is running with reason busy', () => {
    const w = world({ mobs: [mobAt(250, 700)] });
    const p = join(w, player({ x: 100, y: 700 }));
    tick(w, [cast(p.id, FIREBALL, mobId(0))], 100);
    const ev = tick(w, [cast(p.id, INSTANT, mobId(0))], 200);
    expect(received(ev, p.id, 'SpellFailed')).toEqual([{ casterId: p.id, spellId: INSTANT, reason: 'busy' }]);
  });

  it('heals self (target 0) and other players, capped at max health', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 700, health: 50 }));
    const q = join(w, player({ x: 150, y: 700, health: 95 }));
    let ev = tick(w, [cast(p.id, HEAL, 0)], 100);
    expect(received(ev, p.id, 'CombatEvent')).toEqual([
      { sourceId: p.id, targetId: p.id, spellId: HEAL, kind: 'heal', amount: 20, crit: false },
    ]);
    expect(p.health).toBe(70);
    ev = tick(w, [cast(p.id, HEAL, q.id)], 200);
    expect(q.health).toBe(100);
    expect(received(ev, q.id, 'CombatEvent')).toEqual([
      { sourceId: p.id, targetId: q.id, spellId: HEAL, kind: 'heal', amount: 20, crit: false },
    ]);
    expect(ofType(ev, 'health').map((e) => e.entity)).toEqual([q]);
  });

  it('regenerates mana slowly', () => {
    const w = world({ mobs: [mobAt(250, 700)], rules: { manaRegenInterval: 1000 } });
    const p = join(w, player({ x: 100, y: 700, mana: 80 }));
    const ev = runUntil(w, 2000);
    expect(p.mana).toBe(90);
    expect(received(ev, p.id, 'PlayerStats').map((s) => s.mana)).toEqual([85, 90]);
  });
});

describe('player death', () => {
  it('dies at 0 health and respawns at the graveyard with full health after the delay', () => {
    const w = world({ mobs: [mobAt(300, 600)], rules: { playerRespawnDelay: 1000 } });
    const p = join(w, player({ x: 285, y: 600, health: 8 }));
    const q = join(w, player({ x: 200, y: 600 }));
    expect(q.visible.has(p.id)).toBe(true);
    const death = runUntil(w, 1100);
    expect(ofType(death, 'died')).toEqual([{ type: 'died', entity: p, killerId: mobId(0) }]);
    expect(p.alive).toBe(false);
    // The dead stay where they fell, seen by those around.
    expect(q.visible.has(p.id)).toBe(true);
    expect(
      received(tick(w, [move(p, 280, 600, { t: 1150 })], 1150), p.id, 'PositionCorrection')[0]?.reason,
    ).toBe('dead');

    let respawn: WorldEvent[] = [];
    runEach(w, 2200, (events) => {
      if (ofType(events, 'respawned').length > 0) respawn = events;
    });
    expect(ofType(respawn, 'respawned')).toEqual([{ type: 'respawned', entity: p }]);
    expect([p.x, p.y, p.alive, p.health]).toEqual([50, 900, true, 100]);
    expect(p.sent).toMatchObject({ x: 50, y: 900, moving: false });
    // q, far from the graveyard, stops seeing it in the same step; p's view moves with it
    // (the mob's cell is out of it now, q's is still in it: views are cells, not symmetric).
    expect(unseenBy(respawn, q.id)).toEqual([p.id]);
    expect(unseenBy(respawn, p.id)).toEqual([mobId(0)]);
    expect(q.visible.has(p.id)).toBe(false);
    expect(p.visible.has(q.id)).toBe(true);
    expect(p.viewCells.has(p.cell)).toBe(true);
    expect(received(tick(w, [move(p, 55, 900, { t: 2300, seq: 6 })], 2300), p.id, 'MoveAck')).toEqual([
      { seq: 6 },
    ]);
  });
});
