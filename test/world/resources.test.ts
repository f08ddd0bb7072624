/**
 * Health and mana over time: a trickle in a fight, a share of the maximum once resting (after
 * restDelay without casting, dealing or taking a blow), and a respawn that restores stated shares.
 */
import { describe, expect, it } from 'vitest';
import type { Player, World } from '../../server/world/index.js';
import { cast, HEAL, join, mobAt, player, runEach, template, tick, world } from './builders.js';

const REGEN = {
  manaRegenInterval: 1000,
  manaRegenAmount: 2,
  healthRegenAmount: 1,
  restDelay: 5000,
  restHealthPercent: 10,
  restManaPercent: 10,
};

/** Health and mana gained over each second from `from` to `to` (a round lands each second). */
function gains(w: World, p: Player, from: number, to: number): { health: number; mana: number }[] {
  const out: { health: number; mana: number }[] = [];
  for (let t = from; t < to; t += 1000) {
    const [health, mana] = [p.health, p.mana];
    for (let s = t + 50; s <= t + 1000; s += 50) tick(w, [], s);
    out.push({ health: p.health - health, mana: p.mana - mana });
  }
  return out;
}

describe('regeneration', () => {
  it('trickles in a fight and comes back in tenths of the maximum 5 s after the last cast', () => {
    const w = world({ rules: REGEN });
    const p = join(w, player({ x: 100, y: 700, health: 30, mana: 30 }), 0);
    // A rest of 5 s from joining has not passed: a cast now starts the fight's clock.
    tick(w, [cast(p.id, HEAL, 0)], 500);
    expect([p.health, p.mana]).toEqual([50, 25]);
    // Rounds at 1000, 2000, ... : in the fight until 5500, resting from the round at 6000.
    const g = gains(w, p, 500, 8500);
    expect(g.slice(0, 5)).toEqual(Array(5).fill({ health: 1, mana: 2 }));
    expect(g.slice(5)).toEqual(Array(3).fill({ health: 10, mana: 10 }));
  });

  it('a blow taken keeps a player in the fight, and the rest starts 5 s after the last one', () => {
    // One swing (the first comes at once), then none: the mob never swings again.
    const w = world({
      mobs: [mobAt(120, 700)],
      templates: [template({ meleeMin: 3, meleeMax: 3, swingTime: 1e9, aggroRadius: 50 })],
      rules: REGEN,
    });
    const p = join(w, player({ x: 100, y: 700, health: 40, mana: 40 }), 0);
    // The mob swung as the player came in (the step at 0): one blow, 3 of its 40 health.
    expect(p.health).toBe(37);
    const hitAt = 0;
    tick(w, [], 1000);
    const g = gains(w, p, 1000, 9000);
    // Rounds at 2000 .. 9000: resting only from the first round 5 s after the blow.
    const restFrom = Math.ceil((hitAt + 5000) / 1000) * 1000;
    g.forEach((gain, i) => {
      const round = 2000 + i * 1000;
      expect(gain).toEqual(round >= restFrom ? { health: 10, mana: 10 } : { health: 1, mana: 2 });
    });
  });

  it('stops at the maximum, and gives nothing to the dead', () => {
    const w = world({ rules: REGEN });
    const p = join(w, player({ x: 100, y: 700, health: 95, mana: 99 }), 0);
    gains(w, p, 0, 8000);
    expect([p.health, p.mana]).toEqual([100, 100]);
    const q = join(w, player({ x: 150, y: 700, health: 40, mana: 40 }), 8000);
    q.alive = false;
    q.respawnAt = 1e12;
    w.deadPlayers.add(q);
    gains(w, q, 8000, 16000);
    expect([q.health, q.mana]).toEqual([40, 40]);
  });
});

describe('respawn', () => {
  /** A player killed by one blow with `mana` left, then stood up at the graveyard. */
  function respawned(mana: number, rules: Record<string, number>): Player {
    const w = world({
      mobs: [mobAt(120, 700)],
      templates: [template({ meleeMin: 1000, meleeMax: 1000, aggroRadius: 50 })],
      rules: { playerRespawnDelay: 1000, ...rules },
    });
    const p = join(w, player({ x: 100, y: 700, mana }), 0);
    runEach(w, 3000, () => {});
    expect(p.alive).toBe(true);
    expect([p.x, p.y]).toEqual([w.zone.graveyard.x, w.zone.graveyard.y]);
    return p;
  }

  it('restores the stated shares of health and mana', () => {
    const p = respawned(10, { respawnHealthPercent: 100, respawnManaPercent: 50 });
    expect([p.health, p.mana]).toEqual([100, 50]);
    expect(respawned(10, { respawnHealthPercent: 100, respawnManaPercent: 100 }).mana).toBe(100);
    expect(respawned(10, { respawnHealthPercent: 35, respawnManaPercent: 0 }).health).toBe(35);
  });

  it('never takes away what the player had', () => {
    expect(respawned(80, { respawnHealthPercent: 100, respawnManaPercent: 50 }).mana).toBe(80);
  });
});
