import { describe, expect, it } from 'vitest';
import { checkAccountName, checkCharacterName } from '../../server/session/names.js';

describe('character names', () => {
  it('stores a valid name capitalised whatever the case typed', () => {
    expect(checkCharacterName('aRWEN')).toEqual({ ok: true, name: 'Arwen' });
    expect(checkCharacterName('bob')).toEqual({ ok: true, name: 'Bob' });
    expect(checkCharacterName('Abcdefghijklmnop')).toEqual({ ok: true, name: 'Abcdefghijklmnop' });
  });

  it.each(['Al', 'Abcdefghijklmnopq', 'R2D2', 'Anne Marie', 'Zoë', 'under_score', '', ' Bob'])(
    'refuses %j with ERR_BAD_NAME',
    (raw) => {
      expect(checkCharacterName(raw)).toEqual({ ok: false, code: 'ERR_BAD_NAME' });
    },
  );
});

describe('account names', () => {
  it('keeps a valid name as typed', () => {
    expect(checkAccountName('Dragon_Slayer_99')).toEqual({ ok: true, name: 'Dragon_Slayer_99' });
    expect(checkAccountName('abc')).toEqual({ ok: true, name: 'abc' });
    expect(checkAccountName('a'.repeat(32))).toEqual({ ok: true, name: 'a'.repeat(32) });
  });

  it.each(['ab', 'a'.repeat(33), 'with space', 'dash-ed', 'émile', 'semi;colon', ''])(
    'refuses %j with ERR_BAD_ACCOUNT_NAME',
    (raw) => {
      expect(checkAccountName(raw)).toEqual({ ok: false, code: 'ERR_BAD_ACCOUNT_NAME' });
    },
  );
});
