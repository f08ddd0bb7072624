import { describe, expect, it } from 'vitest';
import { browserDeviceTokens } from '../../web-client/src/net/device-store.js';

/** localStorage's interface over a Map. */
function memoryStorage(): Storage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
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

describe("the browser's remembered-device tokens", () => {
  const token = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);

  it('keeps one token per account, whatever its case, in localStorage', () => {
    const storage = memoryStorage();
    const store = browserDeviceTokens(storage);
    expect(store.get('alice')).toBeUndefined();
    store.set('Alice', token);
    expect(store.get('ALICE')).toEqual(token);
    expect(store.get('bob')).toBeUndefined();
    expect([...storage.items.keys()]).toEqual(['wyvern.device.alice']);
    // Another page load reads what this one kept.
    expect(browserDeviceTokens(storage).get('alice')).toEqual(token);
  });

  it('ignores what is not a token, and works without storage', () => {
    const storage = memoryStorage();
    storage.setItem('wyvern.device.alice', 'not hex');
    expect(browserDeviceTokens(storage).get('alice')).toBeUndefined();
    const none = browserDeviceTokens(undefined);
    none.set('alice', token);
    expect(none.get('alice')).toBeUndefined();
  });
});
