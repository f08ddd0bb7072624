/**
 * Experience and levels: what a kill is worth by the level difference, grey mobs, level-ups
 * with their stats and the event everyone in view gets, spell power, regeneration by level,
 * and what is saved.
 */
import { describe, expect, it } from 'vitest';
import {
  isGrey,
  killExperience,
  levelStats,
  loadWorldData,
  savedCharacter,
  type WorldEvent,
} from '../../server/world/index.js';
import {
  cast,
  FIREBALL,
  HEAL,
  join,
  mobAt,
  mobId,
  ofType,
  player,
  progression,
  received,
  runUntil,
  template,
  tick,
  world,
  type WorldOptions,
} from './builders.js';

const prog = progression();

describe('experience for a kill', () => {
  it('grows with the mob level, gains a bonus above the player, shrinks below it', () => {
    // base 45 + 5 per mob level
    expect(killExperience(prog, 3, 3)).toBe(60);
    expect(killExperience(prog, 1, 1)).toBe(50);
    // 5% more per level above, counted up to 4 levels
    expect(killExperience(prog, 2, 4)).toBe(Math.round(65 * 1.1));
    expect(killExperience(prog, 1, 5)).toBe(Math.round(70 * 1.2));
    expect(killExperience(prog, 1, 9)).toBe(Math.round(90 * 1.2));
    // a fifth less per level below
    expect(killExperience(prog, 4, 3)).toBe(Math.round(60 * 0.8));
    expect(killExperience(prog, 7, 3)).toBe(Math.round(60 * 0.2));
  });

  it('gives nothing for a grey mob, five or more levels below', () => {
    expect(isGrey(prog, 6, 2)).toBe(false);
    expect(killExperience(prog, 6, 2)).toBeGreaterThan(0);
    expect(isGrey(prog, 7, 2)).toBe(true);
    expect(killExperience(prog, 7, 2)).toBe(0);
    expect(killExperience(prog, 10, 1)).toBe(0);
  });

  it('in the shipped data, takes more kills of even-level mobs for each level', () => {
    const shipped = loadWorldData('data').progression;
    const kills = shipped.levels
      .slice(0, -1)
      .map((l) => Math.ceil(l.experience / killExperience(shipped, l.level, l.level)));
    expect(kills[0]).toBeGreaterThanOrEqual(3);
    expect(kills).toEqual([...kills].sort((a, b) => a - b));
  });
});

/** A mob of `level` that one Fireball (30) kills, 100 east of a player at (100, 700). */
function arena(o: WorldOptions & { mobLevel?: number } = {}) {
  const level = o.mobLevel ?? 3;
  const w = world({
    templates: [template({ health: 20, minLevel: level, maxLevel: level })],
    mobs: [mobAt(200, 700)],
    ...o,
  });
  return w;
}

/** Casts Fireball at the first mob at `t` and runs until it has landed. */
function killFirstMob(w: ReturnType<typeof world>, casterId: number, t = w.now + 50): WorldEvent[] {
  const events = tick(w, [cast(casterId, FIREBALL, mobId(0))], t);
  events.push(...runUntil(w, t + 2200));
  return events;
}

describe('a kill in the world', () => {
  it('gives its killer experience, told as ExperienceGain and in PlayerStats', () => {
    const w = arena({ mobLevel: 3 });
    const p = join(w, player({ x: 100, y: 700, level: 2, experience: 100 }));
    const ev = killFirstMob(w, p.id);
    expect(w.mobs.get(mobId(0))!.alive).toBe(false);
    expect(ofType(ev, 'experienceGained')).toEqual([
      { type: 'experienceGained', player: p, amount: 63, victimId: mobId(0) },
    ]);
    expect(p.experience).toBe(163);
    expect(received(ev, p.id, 'ExperienceGain')).toEqual([{ victimId: mobId(0), amount: 63 }]);
    expect(received(ev, p.id, 'PlayerStats').at(-1)).toMatchObject({
      kills: 1,
      level: 2,
      experience: 163,
      experienceNeeded: 1100,
    });
    expect(ofType(ev, 'leveledUp')).toEqual([]);
  });

  it('gives nothing for a grey mob, but counts the kill', () => {
    const w = arena({ mobLevel: 1, progression: progression({ levels: 8 }) });
    const p = join(w, player({ x: 100, y: 700, level: 6, experience: 10 }));
    const ev = killFirstMob(w, p.id);
    expect(w.mobs.get(mobId(0))!.alive).toBe(false);
    expect(ofType(ev, 'experienceGained')).toEqual([]);
    expect(received(ev, p.id, 'ExperienceGain')).toEqual([]);
    expect(p.experience).toBe(10);
    expect(p.kills).toBe(1);
  });

  it('levels up: stats grow to the next level, health and mana fill, and everyone in view sees it', () => {
    const w = arena({ mobLevel: 1, progression: progression({ first: { experience: 60 } }) });
    const p = join(w, player({ x: 100, y: 700, experience: 20, health: 40, name: 'Ayla' }));
    const q = join(w, player({ x: 120, y: 650, name: 'Bram' }));
    expect(q.visible.has(p.id)).toBe(true);
    const ev = killFirstMob(w, p.id);
    // 20 + 50: level 2 with 10 over
    expect(p.level).toBe(2);
    expect(p.experience).toBe(10);
    expect([p.maxHealth, p.maxMana]).toEqual([120, 110]);
    expect([p.health, p.mana]).toEqual([120, 110]);
    expect(ofType(ev, 'leveledUp')).toEqual([{ type: 'leveledUp', player: p, level: 2, witnesses: [q.id] }]);
    for (const who of [p, q]) {
      expect(received(ev, who.id, 'LevelUp')).toEqual([{ entityId: p.id, level: 2 }]);
      expect(received(ev, who.id, 'ChatMessage')).toEqual([
        { channel: 'system', fromId: 0, from: '', to: '', text: 'Ayla reached level 2' },
      ]);
    }
    // The new max health goes out as entity state; the own stats as PlayerStats.
    const health = ofType(ev, 'health').filter((e) => e.entity === p);
    expect(health.length).toBeGreaterThan(0);
    expect(received(ev, p.id, 'PlayerStats').at(-1)).toMatchObject({
      level: 2,
      maxMana: 110,
      mana: 110,
      experience: 10,
      experienceNeeded: 1100,
    });
    expect(received(ev, q.id, 'PlayerStats')).toEqual([]);
    expect(savedCharacter(w, p)).toMatchObject({ level: 2, experience: 10 });
  });

  it('climbs several levels from one big kill and stops counting at the highest', () => {
    const levels = progression({ levels: 3 }).levels.map((l, i) => ({ ...l, experience: i < 2 ? 10 : 0 }));
    const w = arena({ mobLevel: 3, progression: { ...prog, levels } });
    const p = join(w, player({ x: 100, y: 700 }));
    const ev = killFirstMob(w, p.id);
    expect(p.level).toBe(3);
    expect(p.experience).toBe(0);
    expect(ofType(ev, 'leveledUp').map((e) => e.level)).toEqual([2, 3]);
    expect(received(ev, p.id, 'PlayerStats').at(-1)).toMatchObject({ level: 3, experienceNeeded: 0 });
  });

  it('at the highest level earns nothing more', () => {
    const w = arena({ mobLevel: 5 });
    const p = join(w, player({ x: 100, y: 700, level: 5 }));
    const ev = killFirstMob(w, p.id);
    expect(p.kills).toBe(1);
    expect(ofType(ev, 'experienceGained')).toEqual([]);
    expect(p.experience).toBe(0);
  });

  it("is credited across a border with the victim's level", () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 700, level: 2 }));
    const ev = tick(
      w,
      [
        {
          type: 'strip',
          from: 'East',
          entities: [],
          kills: [{ killerId: p.id, victimId: 5, victimLevel: 4 }],
        },
      ],
      100,
    );
    expect(p.kills).toBe(1);
    expect(p.experience).toBe(Math.round(65 * 1.1));
    expect(received(ev, p.id, 'ExperienceGain')).toEqual([{ victimId: 5, amount: Math.round(65 * 1.1) }]);
  });
});

describe('levels in play', () => {
  it('a character joins with its level’s max health and mana, and its experience', () => {
    const w = world();
    const p = join(w, player({ level: 3, experience: 250 }));
    expect([p.level, p.maxHealth, p.maxMana, p.health, p.mana, p.experience]).toEqual([
      3, 140, 120, 140, 120, 250,
    ]);
    // A level past the table is its top; experience past the level's span is cut to it.
    const q = join(w, player({ level: 40, experience: 5 }));
    expect([q.level, q.maxHealth, q.experience]).toEqual([5, 180, 0]);
    const r = join(w, player({ level: 1, experience: 5000 }));
    expect(r.experience).toBe(999);
  });

  it('spell power adds its percentage to damage and healing', () => {
    const w = arena({ templates: [template({ health: 500 })] });
    const p = join(w, player({ x: 100, y: 700, level: 3, health: 50 }));
    // level 3: spell power 20
    const ev = killFirstMob(w, p.id);
    expect(
      ofType(ev, 'spellHit')
        .filter((e) => e.sourceId === p.id)
        .map((e) => e.amount),
    ).toEqual([36]);
    const heal = tick(w, [cast(p.id, HEAL, p.id)], w.now + 50);
    expect(
      ofType(heal, 'spellHit')
        .filter((e) => e.sourceId === p.id)
        .map((e) => e.amount),
    ).toEqual([24]);
    expect(levelStats(w.data.progression, 3).spellPower).toBe(20);
  });

  it('regenerates health and mana by the level’s rates', () => {
    const w = world({ rules: { manaRegenInterval: 1000 } });
    const p = join(w, player({ x: 100, y: 700, level: 3, health: 100, mana: 50 }));
    const ev = runUntil(w, 2000);
    // level 3: 2 health and 7 mana a tick
    expect([p.health, p.mana]).toEqual([104, 64]);
    expect(ofType(ev, 'health').filter((e) => e.entity === p)).toHaveLength(2);
  });
});
