import { describe, expect, it } from 'vitest';
import { WyvernError } from '../../shared/client/errors.js';
import {
  characterNameCandidates,
  commandHelp,
  createWithFreeName,
  experienceGainText,
  levelUpText,
} from '../../tools/terminal-text.js';

describe('default character names', () => {
  it('keeps what tells accounts apart: alice1 and alice2 get different names', () => {
    const one = characterNameCandidates('alice1')[0];
    const two = characterNameCandidates('alice2')[0];
    expect(one).toBe('Aliceone');
    expect(two).toBe('Alicetwo');
    for (const n of [
      ...characterNameCandidates('alice2'),
      ...characterNameCandidates('a_very_long_account_9'),
    ]) {
      expect(n).toMatch(/^[A-Z][a-z]{2,15}$/);
    }
  });

  it('gives no name for an account with too few letters or digits', () => {
    expect(characterNameCandidates('__')).toEqual([]);
  });

  it('tries the next name when one is taken, and gives up only when all are', async () => {
    const taken = new Set(['Alicetwo', 'Alicetwoa']);
    const tried: string[] = [];
    const create = (name: string) => {
      tried.push(name);
      if (taken.has(name)) return Promise.reject(new WyvernError('ERR_NAME_TAKEN', '', false));
      return Promise.resolve({ name });
    };
    await expect(createWithFreeName('alice2', create)).resolves.toEqual({ name: 'Alicetwob' });
    expect(tried).toEqual(['Alicetwo', 'Alicetwoa', 'Alicetwob']);
    const none = () => Promise.reject(new WyvernError('ERR_NAME_TAKEN', '', false));
    await expect(createWithFreeName('alice2', none)).resolves.toBeUndefined();
  });

  it('passes on any other refusal', async () => {
    const full = () => Promise.reject(new WyvernError('ERR_TOO_MANY_CHARACTERS', '', false));
    await expect(createWithFreeName('alice2', full)).rejects.toMatchObject({
      code: 'ERR_TOO_MANY_CHARACTERS',
    });
  });
});

describe('help', () => {
  it('numbers the spells the character has', () => {
    expect(commandHelp(5)).toContain('cast spell N (1-5 in your spell book');
  });
});

describe('experience lines', () => {
  it('tells a gain with where it leaves the character, and a level-up with the new stats', () => {
    expect(experienceGainText(63, 'Meadow Wolf', { level: 2, experience: 163, experienceNeeded: 350 })).toBe(
      'You gain 63 experience (Meadow Wolf): 163/350 to level 3',
    );
    expect(levelUpText({ level: 3, maxMana: 180, experience: 13, experienceNeeded: 500 }, 250)).toBe(
      'You reached level 3: 250 health, 180 mana; 13/500 to level 4',
    );
    expect(levelUpText({ level: 10, maxMana: 340, experience: 0, experienceNeeded: 0 }, 500)).toBe(
      'You reached level 10: 500 health, 340 mana; highest level',
    );
  });
});
