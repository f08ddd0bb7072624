import { describe, expect, it } from 'vitest';
import { distance } from '../../shared/game/movement.js';
import {
  cast,
  INSTANT,
  join,
  mobAt,
  mobId,
  ofType,
  player,
  runUntil,
  template,
  tick,
  world,
} from './builders.js';

describe('mob aggro needs line of sight', () => {
  it('ignores a player within its aggro radius on the far side of a wall', () => {
    // A wall from y 500 to 700 between the mob (x 470) and the player (x 520), 50 apart.
    const w = world({ mobs: [mobAt(470, 600)], zone: { obstacles: [{ x: 490, y: 500, w: 10, h: 200 }] } });
    join(w, player({ x: 520, y: 600 }));
    runUntil(w, 1000);
    expect(w.mobs.get(mobId(0))!.state).toBe('idle');
  });

  it('notices the same player at the same distance in the open', () => {
    const w = world({ mobs: [mobAt(470, 600)], zone: { obstacles: [] } });
    const p = join(w, player({ x: 520, y: 600 }));
    runUntil(w, 1000);
    expect(w.mobs.get(mobId(0))!.state).toBe('chase');
    expect(w.mobs.get(mobId(0))!.targetId).toBe(p.id);
  });
});

describe('mobs fighting one player', () => {
  it('stand apart around the target, each within melee range', () => {
    // Five mobs from one spawn point all come from the same side.
    const w = world({
      mobs: [{ template: 1, x: 300, y: 600, count: 5 }],
      zone: { obstacles: [] },
      rules: { meleeRange: 22 },
    });
    const p = join(w, player({ x: 250, y: 600 }));
    tick(w, [], 50);
    runUntil(w, 3000);
    const mobs = [0, 1, 2, 3, 4].map((n) => w.mobs.get(mobId(n))!);
    for (const m of mobs) {
      expect(m.state).toBe('chase');
      expect(distance(m, p)).toBeLessThanOrEqual(22);
    }
    for (let i = 0; i < mobs.length; i++) {
      for (let j = i + 1; j < mobs.length; j++) {
        expect(distance(mobs[i]!, mobs[j]!)).toBeGreaterThanOrEqual(10);
      }
    }
  });

  /** Ten harmless mobs (one Zap kills each) from one spawn point, all on one player in the open. */
  function crowd() {
    const w = world({
      mobs: [{ template: 1, x: 300, y: 600, count: 10 }],
      templates: [template({ health: 10, meleeMin: 0, meleeMax: 0, aggroRadius: 80, respawnTime: 1e9 })],
      zone: { obstacles: [] },
      rules: { meleeRange: 22 },
    });
    const p = join(w, player({ x: 250, y: 600 }));
    tick(w, [], 50);
    runUntil(w, 4000);
    const mobs = Array.from({ length: 10 }, (_, n) => w.mobs.get(mobId(n))!);
    return { w, p, mobs };
  }

  /** The closest two of `mobs` are this far apart. */
  function closest(mobs: { x: number; y: number }[]): number {
    let min = Infinity;
    for (let i = 0; i < mobs.length; i++)
      for (let j = i + 1; j < mobs.length; j++) min = Math.min(min, distance(mobs[i]!, mobs[j]!));
    return min;
  }

  it('more than fit round it: each takes a place of its own, as many as fit in melee range, the rest wait just outside', () => {
    const { w, p, mobs } = crowd();
    for (const m of mobs) expect(m.state).toBe('chase');
    // No two bodies (16 units across) on one spot.
    expect(closest(mobs)).toBeGreaterThanOrEqual(14);
    const inReach = mobs.filter((m) => distance(m, p) <= 22);
    // A ring of radius 17.6 holds six bodies; the others stand on the next ring, one body out.
    expect(inReach).toHaveLength(6);
    for (const m of mobs) expect(distance(m, p)).toBeLessThanOrEqual(22 + 16 + 1);
    // Waiting is quiet: no route announced again and again while nothing changes.
    const events = runUntil(w, 6000);
    expect(ofType(events, 'path')).toHaveLength(0);
  });

  it('a waiting attacker steps into the place of one that falls', () => {
    const { w, p, mobs } = crowd();
    const victim = mobs.find((m) => distance(m, p) <= 22)!;
    tick(w, [cast(p.id, INSTANT, victim.id)], w.now + 50);
    expect(victim.alive).toBe(false);
    runUntil(w, w.now + 2000);
    const alive = mobs.filter((m) => m.alive);
    expect(alive).toHaveLength(9);
    expect(alive.filter((m) => distance(m, p) <= 22)).toHaveLength(6);
    expect(closest(alive)).toBeGreaterThanOrEqual(14);
  });
});
