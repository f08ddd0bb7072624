import { describe, expect, it } from 'vitest';
import {
  FIREBALL,
  INSTANT,
  join,
  mobAt,
  mobId,
  player,
  received,
  runUntil,
  tick,
  world,
  cast,
} from './builders.js';

/** A wall from y 600 to 800 at x 300; the mob stands out of aggro range, in spell range. */
const wall = { x: 300, y: 600, w: 20, h: 200 };

describe('spells need line of sight', () => {
  it('refuses a cast at a target behind a wall, to the caster, and spends nothing', () => {
    const w = world({ mobs: [mobAt(380, 700)], zone: { obstacles: [wall] } });
    const p = join(w, player({ x: 200, y: 700 }));
    const m = w.mobs.get(mobId(0))!;
    const events = tick(w, [cast(p.id, INSTANT, m.id)], 100);
    expect(received(events, p.id, 'SpellFailed')).toEqual([
      { casterId: p.id, spellId: INSTANT, reason: 'lineOfSight' },
    ]);
    expect(m.health).toBe(m.maxHealth);
    expect(p.mana).toBe(100);
  });

  it('fails a cast whose target walked behind a wall before it completed', () => {
    const w = world({ mobs: [mobAt(380, 560)], zone: { obstacles: [wall] } });
    const p = join(w, player({ x: 200, y: 560 }));
    const m = w.mobs.get(mobId(0))!;
    const start = tick(w, [cast(p.id, FIREBALL, m.id)], 100);
    expect(received(start, p.id, 'SpellStart')).toHaveLength(1);
    // The mob is carried behind the wall mid-cast.
    m.y = 640;
    const end = runUntil(w, 1200);
    expect(received(end, p.id, 'SpellFailed')).toEqual([
      { casterId: p.id, spellId: FIREBALL, reason: 'lineOfSight' },
    ]);
    expect(received(end, p.id, 'SpellGo')).toEqual([]);
    expect(p.mana).toBe(100);
  });

  it('still hits a target in the open at the same distance', () => {
    const w = world({ mobs: [mobAt(380, 700)], zone: { obstacles: [] } });
    const p = join(w, player({ x: 200, y: 700 }));
    const m = w.mobs.get(mobId(0))!;
    const events = tick(w, [cast(p.id, INSTANT, m.id)], 100);
    expect(received(events, p.id, 'SpellFailed')).toEqual([]);
    expect(m.health).toBe(m.maxHealth - 10);
  });
});
