/** Small builders for store tests. */
import type { CharacterState, NewAccount, NewCharacter } from '../../server/store/index.js';

let serial = 0;
/** A name no other builder call in this process returns. */
export function uniqueName(prefix: string): string {
  serial += 1;
  return `${prefix}${String.fromCharCode(97 + (serial % 26))}${serial}`;
}

export function account(overrides: Partial<NewAccount> = {}): NewAccount {
  return {
    name: overrides.name ?? uniqueName('Acct'),
    salt: overrides.salt ?? Uint8Array.from({ length: 64 }, (_, i) => i),
    verifier: overrides.verifier ?? Uint8Array.from({ length: 256 }, (_, i) => 255 - i),
  };
}

export function state(overrides: Partial<CharacterState> = {}): CharacterState {
  return {
    zone: 'meadow',
    x: 100.5,
    y: 200.25,
    facing: 1.5,
    level: 1,
    health: 100,
    mana: 50,
    spells: [1],
    kills: 0,
    experience: 0,
    ...overrides,
  };
}

export function character(
  accountId: number,
  overrides: Partial<Omit<NewCharacter, 'accountId'>> = {},
): NewCharacter {
  const { name, appearance, ...rest } = overrides;
  return { accountId, name: name ?? uniqueName('Hero'), appearance: appearance ?? 3, ...state(rest) };
}
