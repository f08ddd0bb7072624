import { describe, expect, it } from 'vitest';
import {
  clearSession,
  hexToToken,
  loadSession,
  saveSession,
  tokenToHex,
} from '../../web-client/src/net/resume-store.js';

/** sessionStorage's interface over a Map. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, String(v)),
  };
}

describe('the tab session store', () => {
  const token = Uint8Array.from({ length: 32 }, (_, i) => i * 7);

  it('round-trips a token through hex', () => {
    expect(hexToToken(tokenToHex(token))).toEqual(token);
    expect(tokenToHex(token)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the account and newest token, and merges the page state into it', () => {
    const store = memoryStorage();
    expect(loadSession(store)).toBeUndefined();
    // Nothing to merge into before a login.
    saveSession({ targetId: 4 }, store);
    expect(loadSession(store)).toBeUndefined();
    saveSession({ account: 'alice', token: tokenToHex(token) }, store);
    saveSession({ appearance: 2 }, store);
    saveSession({ targetId: 9 }, store);
    expect(loadSession(store)).toEqual({
      account: 'alice',
      token: tokenToHex(token),
      appearance: 2,
      targetId: 9,
    });
    const next = tokenToHex(new Uint8Array(32).fill(1));
    saveSession({ account: 'alice', token: next }, store);
    expect(loadSession(store)?.token).toBe(next);
    clearSession(store);
    expect(loadSession(store)).toBeUndefined();
  });

  it('ignores what it cannot read', () => {
    const store = memoryStorage();
    store.setItem('wyvern.session', '{not json');
    expect(loadSession(store)).toBeUndefined();
    store.setItem('wyvern.session', JSON.stringify({ account: 'a', token: 'zz' }));
    expect(loadSession(store)).toBeUndefined();
  });
});
