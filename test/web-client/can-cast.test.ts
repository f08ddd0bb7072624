import { describe, expect, it } from 'vitest';
import { castBlock, type CastCheck } from '../../web-client/src/state/can-cast.js';

const fireball = { kind: 'damage' as const, manaCost: 25, range: 240 };
const heal = { kind: 'heal' as const, manaCost: 30, range: 200 };
const me = { id: 1, x: 100, y: 100, alive: true, mana: 150 };
const wolf = { id: 900, kind: 'mob' as const, x: 250, y: 100, alive: true };
const friend = { id: 2, kind: 'player' as const, x: 150, y: 100, alive: true };

function check(over: Partial<CastCheck> = {}): CastCheck {
  return { spell: fireball, caster: me, cooldownLeft: 0, target: wolf, walls: [], ...over };
}

describe('castBlock: what the action bar greys out', () => {
  it('lets a ready spell with mana go at a living mob in range and in sight', () => {
    expect(castBlock(check())).toBeUndefined();
  });

  it('greys a spell on cooldown, or one the mana does not cover', () => {
    expect(castBlock(check({ cooldownLeft: 1200 }))).toBe('cooldown');
    expect(castBlock(check({ caster: { ...me, mana: 24 } }))).toBe('mana');
    expect(castBlock(check({ caster: { ...me, mana: 25 } }))).toBeUndefined();
  });

  it('greys a damage spell with no target, a dead one or a player', () => {
    expect(castBlock(check({ target: undefined }))).toBe('target');
    expect(castBlock(check({ target: { ...wolf, alive: false } }))).toBe('target');
    expect(castBlock(check({ target: friend }))).toBe('target');
  });

  it('greys a target beyond the spell range (a target just inside it is fine)', () => {
    expect(castBlock(check({ target: { ...wolf, x: 100 + 241 } }))).toBe('range');
    expect(castBlock(check({ target: { ...wolf, x: 100 + 240 } }))).toBeUndefined();
  });

  it('greys a target behind a wall, not one beside it', () => {
    const wall = [{ x: 170, y: 50, w: 10, h: 100 }];
    expect(castBlock(check({ walls: wall }))).toBe('sight');
    expect(castBlock(check({ walls: wall, target: { ...wolf, y: 200, x: 150 } }))).toBeUndefined();
  });

  it('lets a heal land on the caster with nothing or a mob selected, and checks a player target', () => {
    expect(castBlock(check({ spell: heal, target: undefined }))).toBeUndefined();
    expect(castBlock(check({ spell: heal, target: { ...wolf, x: 900 } }))).toBeUndefined();
    expect(castBlock(check({ spell: heal, target: friend }))).toBeUndefined();
    expect(castBlock(check({ spell: heal, target: { ...friend, x: 400 } }))).toBe('range');
    expect(castBlock(check({ spell: heal, target: { ...friend, alive: false } }))).toBe('target');
  });

  it('greys everything for the dead', () => {
    expect(castBlock(check({ caster: { ...me, alive: false } }))).toBe('dead');
    expect(castBlock(check({ spell: heal, caster: { ...me, alive: false } }))).toBe('dead');
  });
});
