import { describe, expect, it } from 'vitest';
import {
  cast,
  FIREBALL,
  join,
  mobAt,
  mobId,
  ofType,
  player,
  received,
  runUntil,
  SLOW_CD,
  tick,
  walker,
  world,
} from './builders.js';

describe('a player whose connection dropped (detach)', () => {
  it('stops walking where observers have it by now, not back at its last state, and they get the stop', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 100, y: 500 }));
    const b = join(w, player({ x: 150, y: 500 }));
    const walk = walker(a, 0, 0);
    tick(w, [walk.at(100)], 100);
    expect(a.moving).toBe(true);
    const x = a.x;
    const ev = tick(w, [{ type: 'detach', entityId: a.id }], 150);
    expect(a.moving).toBe(false);
    // Its state (heading 0 at 120 u/s) had it walk on for the 50 ms since: 6 units.
    expect(a.x).toBeCloseTo(x + 6, 6);
    expect(a.sent).toMatchObject({ moving: false, t: 150 });
    expect(w.players.get(a.id)).toBe(a);
    expect(ofType(ev, 'motion').map((e) => [e.entity.id, e.entity.sent.moving])).toEqual([[a.id, false]]);
    expect(ofType(ev, 'removed')).toEqual([]);
    expect(b.visible.has(a.id)).toBe(true);
  });

  it('stays attackable: a mob keeps hitting it, and the hits date its last combat', () => {
    const w = world({ zone: { obstacles: [] }, mobs: [mobAt(130, 500)] });
    const a = join(w, player({ x: 100, y: 500 }));
    expect(a.lastCombatAt).toBe(-Infinity);
    tick(w, [{ type: 'detach', entityId: a.id }], 100);
    runUntil(w, 3000);
    expect(a.health).toBeLessThan(a.maxHealth);
    expect(a.lastCombatAt).toBeGreaterThan(100);
    expect(w.mobs.get(mobId())!.targetId).toBe(a.id);
  });
});

describe('a new session taking a player over (attach)', () => {
  it('stops a walker attached anew where observers have it: its client starts from EnterWorld, standing', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 100, y: 500 }));
    join(w, player({ x: 150, y: 500 }));
    tick(w, [walker(a, 0, 0).at(100)], 100);
    expect(a.moving).toBe(true);
    const x = a.x;
    // Resent its state (a tick message lost on the bus) while walking, with no input after.
    const ev = tick(w, [{ type: 'attach', entityId: a.id, sessionId: 78 }], 150);
    expect(a.moving).toBe(false);
    expect(a.x).toBeCloseTo(x + 6, 6);
    expect(ofType(ev, 'entered').map((e) => e.player.id)).toEqual([a.id]);
    // No input comes: the server does not walk it on where its client does not.
    runUntil(w, 2_000);
    expect(a.x).toBeCloseTo(x + 6, 6);
  });

  it('binds the session and sends its state and every entity in view as seen, with no despawn', () => {
    const w = world({ zone: { obstacles: [] }, mobs: [mobAt(280, 500)] });
    const a = join(w, player({ x: 100, y: 500, name: 'Keeper' }));
    const b = join(w, player({ x: 150, y: 500 }));
    tick(w, [cast(a.id, SLOW_CD, mobId())], 100);
    // The bolt lands; then a fireball is under way when the connection drops.
    runUntil(w, 700);
    tick(w, [cast(a.id, FIREBALL, mobId())], 750);
    tick(w, [{ type: 'detach', entityId: a.id }], 800);
    const ev = tick(w, [{ type: 'attach', entityId: a.id, sessionId: 77 }], 900);

    expect(ofType(ev, 'joined')).toEqual([{ type: 'joined', sessionId: 77, playerId: a.id }]);
    expect(a.sessionId).toBe(77);
    const enter = received(ev, a.id, 'EnterWorld', w);
    expect(enter).toEqual([
      expect.objectContaining({
        entityId: a.id,
        name: 'Keeper',
        x: a.x,
        y: a.y,
        serverTime: 900,
        tick: w.tick,
      }),
    ]);
    expect(received(ev, a.id, 'ZoneInfo', w)).toHaveLength(1);
    expect(received(ev, a.id, 'SpellBook', w)).toHaveLength(1);
    expect(received(ev, a.id, 'PlayerStats', w)).toHaveLength(1);
    expect(received(ev, a.id, 'SpellStart')).toEqual([
      { casterId: a.id, spellId: FIREBALL, targetId: mobId(), castTime: 850 },
    ]);
    // Bolt's 5 s cooldown started when its cast ended at 600.
    expect(received(ev, a.id, 'Cooldown')).toEqual([{ spellId: SLOW_CD, remaining: 4700 }]);
    const seen = ofType(ev, 'seen')
      .filter((e) => e.observerId === a.id)
      .map((e) => e.entity.id)
      .sort((x, y) => x - y);
    expect(seen).toEqual([...a.visible.keys()].sort((x, y) => x - y));
    expect(seen).toContain(b.id);
    expect(seen).toContain(mobId());
    expect(ofType(ev, 'removed')).toEqual([]);
    expect(ofType(ev, 'seen').filter((e) => e.observerId === b.id)).toEqual([]);
  });

  it('forgets the old client clock, so the new one walks without a correction', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 100, y: 500 }));
    const first = walker(a, 0, 100_000);
    tick(w, [first.at(100_000)], 100);
    tick(w, [first.at(100_200, false)], 300);
    tick(w, [{ type: 'detach', entityId: a.id }], 400);
    tick(w, [{ type: 'attach', entityId: a.id, sessionId: 5 }], 500);
    // A reloaded page's clock starts near 0.
    const second = walker(a, 0, 10);
    const ev = [...tick(w, [second.at(10)], 550), ...tick(w, [second.at(210)], 750)];
    expect(received(ev, a.id, 'PositionCorrection')).toEqual([]);
    expect(received(ev, a.id, 'MoveAck').length).toBeGreaterThan(0);
  });

  it('re-sends a logout under way with what is left of it', () => {
    const w = world({ rules: { logoutDelay: 1000 } });
    const a = join(w, player({ x: 100, y: 500 }));
    tick(w, [{ type: 'logout', entityId: a.id }], 100);
    const ev = tick(w, [{ type: 'attach', entityId: a.id, sessionId: 9 }], 400);
    expect(received(ev, a.id, 'LogoutStarted')).toEqual([{ delay: 700 }]);
  });
});
