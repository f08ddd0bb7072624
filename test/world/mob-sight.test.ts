import { describe, expect, it } from 'vitest';
import { distance } from '../../shared/game/movement.js';
import { join, mobAt, mobId, player, runUntil, tick, world } from './builders.js';

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
});
